//! `option` declarations.

use std::fmt;

/// One `option` line: a name and a typed kind with its default and limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionDecl {
    /// The option's name (may hold spaces).
    pub name: String,
    /// Its type, default and limits.
    pub kind: OptionKind,
}

/// The type of an option, with its default and limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `type check default true|false`.
    Check {
        /// The default.
        default: bool,
    },
    /// `type spin default x min y max z`.
    Spin {
        /// The default.
        default: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// `type combo default x var a var b ...`.
    Combo {
        /// The default.
        default: String,
        /// The choices.
        vars: Vec<String>,
    },
    /// `type button`.
    Button,
    /// `type string default x` (an empty string is written `<empty>`).
    String {
        /// The default.
        default: String,
    },
}

const KEYS: [&str; 6] = ["name", "type", "default", "min", "max", "var"];

impl OptionDecl {
    /// Parses the words after `option`; `None` if the name or type is missing
    /// or the type is unknown.
    pub fn parse_tokens(tokens: &[&str]) -> Option<OptionDecl> {
        // Split into (keyword, words) groups; `name` takes every word up to
        // `type`, since names may contain words such as "default".
        let mut name: Option<String> = None;
        let mut ty: Option<&str> = None;
        let mut default: Option<String> = None;
        let (mut min, mut max) = (None, None);
        let mut vars = Vec::new();
        let mut i = 0;
        while i < tokens.len() {
            let key = tokens[i];
            i += 1;
            let stop: &[&str] = if key == "name" { &["type"] } else { &KEYS };
            let start = i;
            while i < tokens.len() && !stop.contains(&tokens[i]) {
                i += 1;
            }
            let words = tokens[start..i].join(" ");
            match key {
                "name" => name = Some(words),
                "type" => ty = tokens.get(start).copied(),
                "default" => default = Some(words),
                "min" => min = words.parse::<i64>().ok(),
                "max" => max = words.parse::<i64>().ok(),
                "var" => vars.push(words),
                _ => {}
            }
        }
        let name = name.filter(|n| !n.is_empty())?;
        let text = |d: Option<String>| {
            d.map(|d| {
                if d == "<empty>" || d == "< empty >" {
                    String::new()
                } else {
                    d
                }
            })
            .unwrap_or_default()
        };
        let kind = match ty? {
            "check" => OptionKind::Check {
                default: default.as_deref() == Some("true"),
            },
            "spin" => {
                let default = default.and_then(|d| d.parse::<i64>().ok()).unwrap_or(0);
                OptionKind::Spin {
                    default,
                    min: min.unwrap_or(default.min(0)),
                    max: max.unwrap_or(default.max(0)),
                }
            }
            "combo" => OptionKind::Combo {
                default: text(default),
                vars,
            },
            "button" => OptionKind::Button,
            "string" => OptionKind::String {
                default: text(default),
            },
            _ => return None,
        };
        Some(OptionDecl { name, kind })
    }
}

impl fmt::Display for OptionDecl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option name {} type ", self.name)?;
        let text = |s: &str| {
            if s.is_empty() {
                "<empty>".to_string()
            } else {
                s.to_string()
            }
        };
        match &self.kind {
            OptionKind::Check { default } => write!(f, "check default {default}"),
            OptionKind::Spin { default, min, max } => {
                write!(f, "spin default {default} min {min} max {max}")
            }
            OptionKind::Combo { default, vars } => {
                write!(f, "combo default {}", text(default))?;
                for v in vars {
                    write!(f, " var {v}")?;
                }
                Ok(())
            }
            OptionKind::Button => f.write_str("button"),
            OptionKind::String { default } => write!(f, "string default {}", text(default)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Message;

    #[test]
    fn round_trips() {
        for line in [
            "option name Nullmove type check default true",
            "option name Selectivity type spin default 2 min 0 max 4",
            "option name Style type combo default Normal var Solid var Normal var Risky",
            "option name NalimovPath type string default c:\\",
            "option name Clear Hash type button",
            "option name UCI_EngineAbout type string default rookery by the rookery authors",
            "option name Empty type string default <empty>",
        ] {
            let m = Message::parse(line);
            assert!(matches!(m, Message::Option(_)), "{line}");
            assert_eq!(m.to_string(), line);
        }
    }

    #[test]
    fn bad_options_are_unknown() {
        crate::message::tests::assert_unknown(&[
            "option",
            "option name",
            "option name X",
            "option name X type frob",
        ]);
    }
}
