//! cutechess-cli's engine configurations (`engines.json`, see
//! cutechess-engines.json(5)): `conf=NAME` in an engine's words is the
//! engine of that name there, written as the engine words it stands for.
//!
//! The file is `--engines-json FILE`, else `./engines.json`, else
//! cutechess's own, `$XDG_CONFIG_HOME/cutechess/engines.json` (by default
//! `~/.config/cutechess/engines.json`), as cutechess-cli looks for it. Every
//! key of an engine is honoured or refused: `name`, `command` (the program
//! and its arguments, split at spaces outside double quotes),
//! `workingDirectory`, `protocol`, `options` (each `{"name", "value"}`;
//! buttons, which hold no value, are left out), `ponder`, `whitepov`,
//! `restart`, `validateClaims`, and `variants` (what the engine can play:
//! nothing to set); `initStrings` (as `initstr=` words: the protocol's
//! opening lines and `setoption` lines are taken, others refused) and
//! `stderrFile` (`stderr=`); `debug` and a `timeoutScaleFactor` other than
//! 1 become the words rookery refuses.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// Where the engine configurations are: `explicit`, else `./engines.json`,
/// else cutechess's own file (which may not exist).
pub fn locate(explicit: Option<&Path>) -> PathBuf {
    if let Some(p) = explicit {
        return p.to_path_buf();
    }
    let here = PathBuf::from("engines.json");
    if here.is_file() {
        return here;
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
    match config {
        Some(dir) => dir.join("cutechess").join("engines.json"),
        None => here,
    }
}

/// The engine words of the configuration `name` in the JSON text `json`
/// (read from `path`, named in messages).
///
/// # Errors
/// A message naming the file and what is wrong: not JSON, not an array of
/// engines, no engine `name` (the names there listed), a key that is not
/// cutechess's.
pub fn words_of(path: &Path, json: &str, name: &str) -> Result<Vec<String>, String> {
    let file = path.display();
    let all: Value = serde_json::from_str(json).map_err(|e| format!("{file}: not JSON: {e}"))?;
    let engines = all
        .as_array()
        .ok_or_else(|| format!("{file}: expected an array of engine configurations"))?;
    let names: Vec<&str> = engines
        .iter()
        .filter_map(|e| e.get("name").and_then(Value::as_str))
        .collect();
    let Some(engine) = engines
        .iter()
        .find(|e| e.get("name").and_then(Value::as_str) == Some(name))
    else {
        return Err(format!(
            "conf={name}: no engine of that name in {file} (it has: {})",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ));
    };
    let bad = |key: &str, why: &str| format!("{file}: engine {name:?}: {key}: {why}");
    let Some(fields) = engine.as_object() else {
        return Err(bad("", "not an object"));
    };
    let text = |key: &str, v: &Value| -> Result<String, String> {
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| bad(key, "expected a string"))
    };
    let flag = |key: &str, v: &Value| -> Result<bool, String> {
        v.as_bool()
            .ok_or_else(|| bad(key, "expected true or false"))
    };
    let mut words = vec![format!("name={name}")];
    let mut rest = Vec::new();
    for (key, v) in fields {
        match key.as_str() {
            "name" | "variants" => {}
            "command" => {
                let command = text(key, v)?;
                let mut parts = split_command(&command).into_iter();
                let program = parts.next().ok_or_else(|| bad(key, "empty"))?;
                words.push(format!("cmd={program}"));
                rest.extend(parts.map(|a| format!("arg={a}")));
            }
            "workingDirectory" => {
                let dir = text(key, v)?;
                if !dir.is_empty() {
                    rest.push(format!("dir={dir}"));
                }
            }
            "protocol" => rest.push(format!("proto={}", text(key, v)?)),
            "stderrFile" => {
                let f = text(key, v)?;
                if !f.is_empty() {
                    rest.push(format!("stderr={f}"));
                }
            }
            "initStrings" => {
                let lines = v.as_array().ok_or_else(|| bad(key, "expected an array"))?;
                for l in lines {
                    rest.push(format!("initstr={}", text(key, l)?));
                }
            }
            "ponder" if flag(key, v)? => rest.push("ponder".into()),
            "whitepov" if flag(key, v)? => rest.push("whitepov".into()),
            "debug" if flag(key, v)? => rest.push("debug".into()),
            "validateClaims" if !flag(key, v)? => rest.push("trust".into()),
            "ponder" | "whitepov" | "debug" | "validateClaims" => {}
            "restart" => rest.push(format!("restart={}", text(key, v)?)),
            "timeoutScaleFactor" => {
                let f = v.as_f64().ok_or_else(|| bad(key, "expected a number"))?;
                if f != 1.0 {
                    rest.push(format!("tscale={f}"));
                }
            }
            "options" => {
                let list = v.as_array().ok_or_else(|| bad(key, "expected an array"))?;
                for o in list {
                    let oname = o
                        .get("name")
                        .and_then(Value::as_str)
                        .ok_or_else(|| bad(key, "an option without a name"))?;
                    if o.get("type").and_then(Value::as_str) == Some("button") {
                        continue;
                    }
                    let value = match o.get("value") {
                        Some(Value::String(s)) => s.clone(),
                        Some(Value::Bool(b)) => b.to_string(),
                        Some(Value::Number(n)) => n.to_string(),
                        _ => return Err(bad(oname, "an option without a value")),
                    };
                    rest.push(format!("option.{oname}={value}"));
                }
            }
            other => return Err(bad(other, "not a key of cutechess's engines.json")),
        }
    }
    if !words.iter().any(|w| w.starts_with("cmd=")) {
        return Err(bad("command", "missing"));
    }
    words.extend(rest);
    Ok(words)
}

/// A command line split at spaces outside double quotes (quotes removed).
fn split_command(command: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let (mut quoted, mut any) = (false, false);
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    parts.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        parts.push(cur);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"[
      {"name": "Sloppy", "command": "sloppy", "protocol": "xboard"},
      {"name": "SF 16", "command": "\"/opt/sf dir/stockfish\" bench-off",
       "workingDirectory": "/tmp", "protocol": "uci", "ponder": true,
       "whitepov": false, "restart": "off", "timeoutScaleFactor": 1,
       "variants": ["standard"],
       "options": [{"name": "Hash", "type": "spin", "value": 64, "default": 16, "min": 1, "max": 1024},
                   {"name": "Ponder", "type": "check", "value": true},
                   {"name": "Clear Hash", "type": "button"},
                   {"name": "SyzygyPath", "value": "/tb"}]},
      {"name": "Odd", "command": "odd", "protocol": "uci", "colour": "blue"}
    ]"#;

    #[test]
    fn an_engine_becomes_its_words() {
        let mut w = words_of(Path::new("e.json"), FILE, "SF 16").unwrap();
        assert_eq!(w[..2], ["name=SF 16", "cmd=/opt/sf dir/stockfish"]);
        // The rest in any order (each key is one word's worth).
        w[2..].sort();
        assert_eq!(
            w[2..],
            [
                "arg=bench-off",
                "dir=/tmp",
                "option.Hash=64",
                "option.Ponder=true",
                "option.SyzygyPath=/tb",
                "ponder",
                "proto=uci",
                "restart=off",
            ]
        );
        // xboard is passed on, for the engine-word reader to refuse.
        let mut w = words_of(Path::new("e.json"), FILE, "Sloppy").unwrap();
        w[2..].sort();
        assert_eq!(w, ["name=Sloppy", "cmd=sloppy", "proto=xboard"]);
    }

    #[test]
    fn a_missing_name_lists_the_names_and_unknown_keys_are_named() {
        let e = words_of(Path::new("e.json"), FILE, "Fruit").unwrap_err();
        assert!(
            e.contains("conf=Fruit") && e.contains("Sloppy, SF 16, Odd"),
            "{e}"
        );
        let e = words_of(Path::new("e.json"), FILE, "Odd").unwrap_err();
        assert!(e.contains("colour"), "{e}");
        let e = words_of(Path::new("e.json"), "{", "X").unwrap_err();
        assert!(e.contains("not JSON"), "{e}");
        let e = words_of(Path::new("e.json"), r#"[{"name":"X"}]"#, "X").unwrap_err();
        assert!(e.contains("command: missing"), "{e}");
    }

    #[test]
    fn commands_split_outside_quotes() {
        assert_eq!(split_command(r#"a "b c" d"#), ["a", "b c", "d"]);
        assert_eq!(split_command(r#"  x  "" "#), ["x", ""]);
    }
}
