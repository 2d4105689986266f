//! `feature NAME=VALUE ...`: what an engine asks of the protocol, the
//! options it declares, and the features a host has agreed to.

use std::fmt;

/// A boolean feature (written `NAME=0` or `NAME=1`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Flag {
    /// `ping`: the host may send `ping N` (answered `pong N`).
    Ping,
    /// `setboard`: positions are set with `setboard FEN` instead of `edit`.
    SetBoard,
    /// `playother`: the host may send `playother`.
    PlayOther,
    /// `san`: moves are sent to the engine in SAN.
    San,
    /// `usermove`: moves are sent as `usermove MOVE` instead of bare.
    UserMove,
    /// `time`: the host sends `time` and `otim` (default on).
    Time,
    /// `draw`: the host relays the opponent's draw offers with `draw` (default on).
    Draw,
    /// `sigint`: the host may interrupt the engine with SIGINT (default on).
    Sigint,
    /// `sigterm`: the host may end the engine with SIGTERM (default on).
    Sigterm,
    /// `reuse`: the engine can play several games in one process (default on).
    Reuse,
    /// `analyze`: the engine has analyze mode (default on).
    Analyze,
    /// `colors`: the host uses the obsolete `white`/`black` (default on).
    Colors,
    /// `ics`: the host sends `ics HOSTNAME`.
    Ics,
    /// `name`: the host sends the opponent's name.
    Name,
    /// `pause`: the host may send `pause` and `resume`.
    Pause,
    /// `nps`: the engine understands `nps NODE_RATE`.
    Nps,
    /// `debug`: lines starting with `#` are debug output.
    Debug,
    /// `memory`: the host sends `memory N` (megabytes).
    Memory,
    /// `smp`: the host sends `cores N`.
    Smp,
    /// `exclude`: the host may send `exclude` and `include`.
    Exclude,
    /// `setscore`: the host may send `setscore`.
    SetScore,
    /// `highlight`: the host sends `lift`, `put` and `hover`.
    Highlight,
}

const FLAGS: [(Flag, &str); 22] = [
    (Flag::Ping, "ping"),
    (Flag::SetBoard, "setboard"),
    (Flag::PlayOther, "playother"),
    (Flag::San, "san"),
    (Flag::UserMove, "usermove"),
    (Flag::Time, "time"),
    (Flag::Draw, "draw"),
    (Flag::Sigint, "sigint"),
    (Flag::Sigterm, "sigterm"),
    (Flag::Reuse, "reuse"),
    (Flag::Analyze, "analyze"),
    (Flag::Colors, "colors"),
    (Flag::Ics, "ics"),
    (Flag::Name, "name"),
    (Flag::Pause, "pause"),
    (Flag::Nps, "nps"),
    (Flag::Debug, "debug"),
    (Flag::Memory, "memory"),
    (Flag::Smp, "smp"),
    (Flag::Exclude, "exclude"),
    (Flag::SetScore, "setscore"),
    (Flag::Highlight, "highlight"),
];

impl Flag {
    /// The feature's name.
    pub fn as_str(self) -> &'static str {
        FLAGS
            .iter()
            .find(|(f, _)| *f == self)
            .map_or("", |(_, n)| n)
    }

    /// The flag of this name (case-sensitive, as the protocol writes them).
    pub fn from_name(name: &str) -> Option<Flag> {
        FLAGS.iter().find(|(_, n)| *n == name).map(|(f, _)| *f)
    }
}

/// A feature's value as written: bare (`ping=1`) or in double quotes
/// (`myname="Fairy-Max 5.0b"`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FeatureValue {
    /// Up to the next whitespace.
    Bare(String),
    /// Between double quotes (which the value cannot contain).
    Quoted(String),
}

impl FeatureValue {
    /// The text, quoted or not.
    pub fn text(&self) -> &str {
        match self {
            FeatureValue::Bare(s) | FeatureValue::Quoted(s) => s,
        }
    }
}

impl fmt::Display for FeatureValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FeatureValue::Bare(s) => f.write_str(s),
            FeatureValue::Quoted(s) => write!(f, "\"{s}\""),
        }
    }
}

/// One `NAME=VALUE` of a `feature` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Feature {
    /// A boolean feature.
    Flag(Flag, bool),
    /// `done=0` (wait for `done=1`, however long) or `done=1` (the features
    /// are complete).
    Done(bool),
    /// `myname="..."`: the engine's name.
    MyName(String),
    /// `variants="normal,fischerandom,..."`: the variants it plays (as
    /// written, comma-separated).
    Variants(Vec<String>),
    /// `egt="nalimov,scorpio"`: the end-game table formats it reads.
    Egt(Vec<String>),
    /// `option="NAME -TYPE ..."`: an option it declares.
    Option(EngineOption),
    /// A feature this crate does not know, or a known one whose value does
    /// not read (answered `rejected`).
    Other {
        /// Its name.
        name: String,
        /// Its value as written.
        value: FeatureValue,
    },
    /// The rest of the line from where it stops being `NAME=VALUE` words.
    Malformed(String),
}

impl Feature {
    /// The name the host answers with `accepted NAME` / `rejected NAME`.
    pub fn name(&self) -> &str {
        match self {
            Feature::Flag(f, _) => f.as_str(),
            Feature::Done(_) => "done",
            Feature::MyName(_) => "myname",
            Feature::Variants(_) => "variants",
            Feature::Egt(_) => "egt",
            Feature::Option(_) => "option",
            Feature::Other { name, .. } => name,
            Feature::Malformed(text) => text,
        }
    }

    /// The feature of `name` with `value`: typed when the name is known
    /// and the value reads, [`Feature::Other`] otherwise.
    pub fn from_pair(name: &str, value: FeatureValue) -> Feature {
        let other = |value| Feature::Other {
            name: name.to_string(),
            value,
        };
        let flag = match &value {
            FeatureValue::Bare(v) if v == "0" => Some(false),
            FeatureValue::Bare(v) if v == "1" => Some(true),
            _ => None,
        };
        // A bare value holding a quote would not write back as it was read.
        let text = match &value {
            FeatureValue::Bare(v) if v.contains('"') => None,
            v => Some(v.text().to_string()),
        };
        let list = |t: &str| t.split(',').map(str::to_string).collect::<Vec<_>>();
        match (name, flag, text) {
            ("done", Some(b), _) => Feature::Done(b),
            ("myname", _, Some(t)) => Feature::MyName(t),
            ("variants", _, Some(t)) => Feature::Variants(list(&t)),
            ("egt", _, Some(t)) => Feature::Egt(list(&t)),
            ("option", _, Some(t)) => match t.parse::<EngineOption>() {
                Ok(o) => Feature::Option(o),
                Err(_) => other(value),
            },
            (n, Some(b), _) => match Flag::from_name(n) {
                Some(f) => Feature::Flag(f, b),
                None => other(value),
            },
            _ => other(value),
        }
    }

    /// Reads the words after `feature`: `NAME=VALUE` pairs, a value bare
    /// (to the next whitespace) or in double quotes (an unclosed quote runs
    /// to the end of the line). Whatever does not read as a pair ends the
    /// list as one [`Feature::Malformed`].
    pub fn parse_list(text: &str) -> Vec<Feature> {
        let mut out = Vec::new();
        let mut rest = text;
        loop {
            rest = rest.trim_start_matches(is_space);
            if rest.is_empty() {
                break;
            }
            let word_end = rest.find(is_space).unwrap_or(rest.len());
            let Some(eq) = rest[..word_end].find('=').filter(|&i| i > 0) else {
                out.push(Feature::Malformed(
                    rest.trim_end_matches(is_space).to_string(),
                ));
                break;
            };
            let name = &rest[..eq];
            let after = &rest[eq + 1..];
            let (value, next) = if let Some(q) = after.strip_prefix('"') {
                match q.find('"') {
                    Some(close) => (
                        FeatureValue::Quoted(q[..close].to_string()),
                        &q[close + 1..],
                    ),
                    None => (FeatureValue::Quoted(q.to_string()), ""),
                }
            } else {
                let end = after.find(is_space).unwrap_or(after.len());
                (FeatureValue::Bare(after[..end].to_string()), &after[end..])
            };
            out.push(Feature::from_pair(name, value));
            rest = next;
        }
        out
    }
}

fn is_space(c: char) -> bool {
    c.is_ascii_whitespace() || c == '\0'
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Feature::Flag(flag, b) => write!(f, "{}={}", flag.as_str(), u8::from(*b)),
            Feature::Done(b) => write!(f, "done={}", u8::from(*b)),
            Feature::MyName(n) => write!(f, "myname=\"{n}\""),
            Feature::Variants(v) => write!(f, "variants=\"{}\"", v.join(",")),
            Feature::Egt(v) => write!(f, "egt=\"{}\"", v.join(",")),
            Feature::Option(o) => write!(f, "option=\"{o}\""),
            Feature::Other { name, value } => write!(f, "{name}={value}"),
            Feature::Malformed(text) => f.write_str(text),
        }
    }
}

/// The kinds of option an engine may declare (`-button`, `-spin`, ...),
/// with the current value where the kind has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `-button`: an action, set without a value.
    Button,
    /// `-save`: like a button, after the host sent every other setting.
    Save,
    /// `-reset`: like a button; the engine declares its options afresh.
    Reset,
    /// `-check 0|1`.
    Check(bool),
    /// `-string TEXT`.
    String(String),
    /// `-file PATH`: a string naming a file.
    File(String),
    /// `-path PATH`: a string naming a directory.
    Path(String),
    /// `-spin VALUE MIN MAX`.
    Spin {
        /// The current value.
        value: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// `-slider VALUE MIN MAX`: a spin a GUI draws as a slider.
    Slider {
        /// The current value.
        value: i64,
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// `-combo CHOICE1 /// CHOICE2 ...`: the choices as written (trimmed),
    /// the current one marked with a leading `*`.
    Combo(Vec<String>),
}

const KINDS: [&str; 10] = [
    "button", "save", "reset", "check", "string", "file", "path", "spin", "slider", "combo",
];

/// An option an engine declares: `feature option="NAME -TYPE ..."`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOption {
    /// The name as declared (it may hold spaces); `option NAME=VALUE` sets it.
    pub name: String,
    /// Its kind and current value.
    pub kind: OptionKind,
}

/// An option declaration that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad option declaration {text:?}: {reason}")]
pub struct ParseOptionError {
    /// The declaration.
    pub text: String,
    /// What was expected.
    pub reason: &'static str,
}

impl std::str::FromStr for EngineOption {
    type Err = ParseOptionError;

    /// Reads `NAME -TYPE ARGS`: the name is everything before the first
    /// ` -TYPE` that is followed by a space or the end.
    fn from_str(text: &str) -> Result<EngineOption, ParseOptionError> {
        let bad = |reason| ParseOptionError {
            text: text.to_string(),
            reason,
        };
        let mut found = None;
        for (i, _) in text.match_indices(" -") {
            let after = &text[i + 2..];
            let word_end = after.find(' ').unwrap_or(after.len());
            let word = &after[..word_end];
            if KINDS.contains(&word) {
                found = Some((i, word, after.get(word_end + 1..).unwrap_or("")));
                break;
            }
        }
        let (at, kind, args) = found.ok_or_else(|| bad("expected NAME -TYPE"))?;
        let ints = || -> Result<(i64, i64, i64), ParseOptionError> {
            let v: Vec<i64> = args
                .split_ascii_whitespace()
                .take(3)
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(|_| bad("expected VALUE MIN MAX"))?;
            match v.as_slice() {
                [value, min, max] => Ok((*value, *min, *max)),
                _ => Err(bad("expected VALUE MIN MAX")),
            }
        };
        let kind = match kind {
            "button" => OptionKind::Button,
            "save" => OptionKind::Save,
            "reset" => OptionKind::Reset,
            "check" => match args.trim() {
                "0" => OptionKind::Check(false),
                "1" => OptionKind::Check(true),
                _ => return Err(bad("expected -check 0 or 1")),
            },
            "string" => OptionKind::String(args.to_string()),
            "file" => OptionKind::File(args.to_string()),
            "path" => OptionKind::Path(args.to_string()),
            "spin" => {
                let (value, min, max) = ints()?;
                OptionKind::Spin { value, min, max }
            }
            "slider" => {
                let (value, min, max) = ints()?;
                OptionKind::Slider { value, min, max }
            }
            _ => OptionKind::Combo(args.split("///").map(|c| c.trim().to_string()).collect()),
        };
        Ok(EngineOption {
            name: text[..at].to_string(),
            kind,
        })
    }
}

impl fmt::Display for EngineOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ", self.name)?;
        match &self.kind {
            OptionKind::Button => f.write_str("-button"),
            OptionKind::Save => f.write_str("-save"),
            OptionKind::Reset => f.write_str("-reset"),
            OptionKind::Check(b) => write!(f, "-check {}", u8::from(*b)),
            OptionKind::String(s) => write!(f, "-string {s}"),
            OptionKind::File(s) => write!(f, "-file {s}"),
            OptionKind::Path(s) => write!(f, "-path {s}"),
            OptionKind::Spin { value, min, max } => write!(f, "-spin {value} {min} {max}"),
            OptionKind::Slider { value, min, max } => write!(f, "-slider {value} {min} {max}"),
            OptionKind::Combo(c) => write!(f, "-combo {}", c.join(" /// ")),
        }
    }
}

impl EngineOption {
    /// The value to send for `value` (`option NAME=VALUE`), checked against
    /// the declaration: `None` for the kinds that take none (buttons);
    /// checks take `1`/`0`/`true`/`false`, spins and sliders an integer in
    /// range, combos one of the choices (in any case; sent as declared).
    ///
    /// # Errors
    /// Why the value does not fit.
    pub fn value_for(&self, value: Option<&str>) -> Result<Option<String>, String> {
        match (&self.kind, value) {
            (OptionKind::Button | OptionKind::Save | OptionKind::Reset, None) => Ok(None),
            (OptionKind::Button | OptionKind::Save | OptionKind::Reset, Some(_)) => {
                Err("a button takes no value".into())
            }
            (_, None) => Err("a value is required".into()),
            (OptionKind::Check(_), Some(v)) => match v.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "on" => Ok(Some("1".into())),
                "0" | "false" | "off" => Ok(Some("0".into())),
                _ => Err("expected 1 or 0 (true or false)".into()),
            },
            (OptionKind::Spin { min, max, .. } | OptionKind::Slider { min, max, .. }, Some(v)) => {
                let n: i64 = v
                    .trim()
                    .parse()
                    .map_err(|_| "expected an integer".to_string())?;
                if n < *min || n > *max {
                    return Err(format!("outside {min}..={max}"));
                }
                Ok(Some(n.to_string()))
            }
            (OptionKind::Combo(choices), Some(v)) => {
                let plain = |c: &str| c.strip_prefix('*').unwrap_or(c).to_string();
                choices
                    .iter()
                    .map(|c| plain(c))
                    .find(|c| c.eq_ignore_ascii_case(v.trim()))
                    .map(Some)
                    .ok_or_else(|| {
                        let all: Vec<String> = choices.iter().map(|c| plain(c)).collect();
                        format!("expected one of {}", all.join(", "))
                    })
            }
            (OptionKind::String(_) | OptionKind::File(_) | OptionKind::Path(_), Some(v)) => {
                Ok(Some(v.to_string()))
            }
        }
    }
}

/// The features an engine has set, each at the protocol's default until the
/// engine says otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Features {
    /// `ping` (default off).
    pub ping: bool,
    /// `setboard` (default off: positions are set with `edit`).
    pub setboard: bool,
    /// `playother` (default off).
    pub playother: bool,
    /// `san` (default off: coordinate notation).
    pub san: bool,
    /// `usermove` (default off: bare moves).
    pub usermove: bool,
    /// `time` (default on).
    pub time: bool,
    /// `draw` (default on).
    pub draw: bool,
    /// `sigint` (default on).
    pub sigint: bool,
    /// `sigterm` (default on).
    pub sigterm: bool,
    /// `reuse` (default on).
    pub reuse: bool,
    /// `analyze` (default on).
    pub analyze: bool,
    /// `colors` (default on).
    pub colors: bool,
    /// `ics` (default off).
    pub ics: bool,
    /// `name` (default: only on a chess server).
    pub name: Option<bool>,
    /// `pause` (default off).
    pub pause: bool,
    /// `nps` (default unknown: a host may try the command).
    pub nps: Option<bool>,
    /// `debug` (default off).
    pub debug: bool,
    /// `memory` (default off).
    pub memory: bool,
    /// `smp` (default off).
    pub smp: bool,
    /// `exclude` (default off).
    pub exclude: bool,
    /// `setscore` (default off).
    pub setscore: bool,
    /// `highlight` (default off).
    pub highlight: bool,
    /// `myname` (default: none; hosts use the program's file name).
    pub myname: Option<String>,
    /// `variants` (default: none given, which the protocol reads as every
    /// variant).
    pub variants: Option<Vec<String>>,
    /// `egt` (default: none).
    pub egt: Vec<String>,
    /// The options declared, in order (a later declaration of the same
    /// name replaces the earlier one).
    pub options: Vec<EngineOption>,
}

impl Default for Features {
    fn default() -> Self {
        Features {
            ping: false,
            setboard: false,
            playother: false,
            san: false,
            usermove: false,
            time: true,
            draw: true,
            sigint: true,
            sigterm: true,
            reuse: true,
            analyze: true,
            colors: true,
            ics: false,
            name: None,
            pause: false,
            nps: None,
            debug: false,
            memory: false,
            smp: false,
            exclude: false,
            setscore: false,
            highlight: false,
            myname: None,
            variants: None,
            egt: Vec::new(),
            options: Vec::new(),
        }
    }
}

impl Features {
    /// Records a feature; `true` if it is accepted (`accepted NAME`),
    /// `false` if rejected: features this crate does not know and values
    /// that do not read. `done` is accepted and changes nothing here.
    pub fn apply(&mut self, feature: &Feature) -> bool {
        match feature {
            Feature::Flag(flag, b) => {
                let b = *b;
                match flag {
                    Flag::Ping => self.ping = b,
                    Flag::SetBoard => self.setboard = b,
                    Flag::PlayOther => self.playother = b,
                    Flag::San => self.san = b,
                    Flag::UserMove => self.usermove = b,
                    Flag::Time => self.time = b,
                    Flag::Draw => self.draw = b,
                    Flag::Sigint => self.sigint = b,
                    Flag::Sigterm => self.sigterm = b,
                    Flag::Reuse => self.reuse = b,
                    Flag::Analyze => self.analyze = b,
                    Flag::Colors => self.colors = b,
                    Flag::Ics => self.ics = b,
                    Flag::Name => self.name = Some(b),
                    Flag::Pause => self.pause = b,
                    Flag::Nps => self.nps = Some(b),
                    Flag::Debug => self.debug = b,
                    Flag::Memory => self.memory = b,
                    Flag::Smp => self.smp = b,
                    Flag::Exclude => self.exclude = b,
                    Flag::SetScore => self.setscore = b,
                    Flag::Highlight => self.highlight = b,
                }
                true
            }
            Feature::Done(_) => true,
            Feature::MyName(n) => {
                self.myname = Some(n.clone());
                true
            }
            Feature::Variants(v) => {
                self.variants = Some(v.clone());
                true
            }
            Feature::Egt(v) => {
                self.egt.clone_from(v);
                true
            }
            Feature::Option(o) => {
                self.options.retain(|x| x.name != o.name);
                self.options.push(o.clone());
                true
            }
            Feature::Other { .. } | Feature::Malformed(_) => false,
        }
    }

    /// Whether the engine plays `variant` (`normal`, `fischerandom`, ...):
    /// listed in `variants`, or no list given.
    pub fn plays(&self, variant: &str) -> bool {
        self.variants
            .as_ref()
            .is_none_or(|v| v.iter().any(|x| x.trim() == variant))
    }

    /// How moves are sent to the engine.
    pub fn notation(&self) -> super::Notation {
        if self.san {
            super::Notation::San
        } else {
            super::Notation::Coordinate
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_value_form() {
        let list = Feature::parse_list(
            "myname=\"Fairy-Max 5.0b\" memory=1 exclude=1  setboard=0 xedit=1\tping=1 done=0",
        );
        assert_eq!(
            list,
            vec![
                Feature::MyName("Fairy-Max 5.0b".into()),
                Feature::Flag(Flag::Memory, true),
                Feature::Flag(Flag::Exclude, true),
                Feature::Flag(Flag::SetBoard, false),
                Feature::Other {
                    name: "xedit".into(),
                    value: FeatureValue::Bare("1".into())
                },
                Feature::Flag(Flag::Ping, true),
                Feature::Done(false),
            ]
        );
        // Quoted values hold spaces and '='; a quote left open runs to the end.
        assert_eq!(
            Feature::parse_list("variants=\"normal,fischerandom\" egt=\"a=b c\" myname=\"open"),
            vec![
                Feature::Variants(vec!["normal".into(), "fischerandom".into()]),
                Feature::Egt(vec!["a=b c".into()]),
                Feature::MyName("open".into()),
            ]
        );
        // Bad values of known features are kept as written.
        assert_eq!(
            Feature::parse_list("ping=yes done=2 san=\"1\""),
            vec![
                Feature::Other {
                    name: "ping".into(),
                    value: FeatureValue::Bare("yes".into())
                },
                Feature::Other {
                    name: "done".into(),
                    value: FeatureValue::Bare("2".into())
                },
                Feature::Other {
                    name: "san".into(),
                    value: FeatureValue::Quoted("1".into())
                },
            ]
        );
        // What is not NAME=VALUE ends the list, kept.
        assert_eq!(
            Feature::parse_list("ping=1 whatever else=1 "),
            vec![
                Feature::Flag(Flag::Ping, true),
                Feature::Malformed("whatever else=1".into())
            ]
        );
        assert_eq!(
            Feature::parse_list("=1"),
            vec![Feature::Malformed("=1".into())]
        );
        assert_eq!(Feature::parse_list("  "), vec![]);
        // Empty values.
        assert_eq!(
            Feature::parse_list("myname= x=\"\""),
            vec![
                Feature::MyName(String::new()),
                Feature::Other {
                    name: "x".into(),
                    value: FeatureValue::Quoted(String::new())
                }
            ]
        );
    }

    #[test]
    fn every_flag_has_its_name() {
        for (flag, name) in FLAGS {
            assert_eq!(flag.as_str(), name);
            assert_eq!(Flag::from_name(name), Some(flag));
            let f = Feature::parse_list(&format!("{name}=1"));
            assert_eq!(f, vec![Feature::Flag(flag, true)]);
            assert_eq!(f[0].to_string(), format!("{name}=1"));
            assert_eq!(f[0].name(), name);
        }
    }

    #[test]
    fn option_declarations_of_every_kind() {
        let cases = [
            ("Clear Hash -button", OptionKind::Button),
            ("Save now -save", OptionKind::Save),
            ("Defaults -reset", OptionKind::Reset),
            ("Resign -check 0", OptionKind::Check(false)),
            (
                "Dummy String Example -string happy birthday!",
                OptionKind::String("happy birthday!".into()),
            ),
            ("Empty -string ", OptionKind::String(String::new())),
            (
                "Ini File -file /usr/share/games/fairymax/fmax.ini",
                OptionKind::File("/usr/share/games/fairymax/fmax.ini".into()),
            ),
            ("Dummy Path Example -path .", OptionKind::Path(".".into())),
            (
                "Resign Threshold -spin 800 200 1200",
                OptionKind::Spin {
                    value: 800,
                    min: 200,
                    max: 1200,
                },
            ),
            (
                "Randomizer (0-50) -slider 0 0 50",
                OptionKind::Slider {
                    value: 0,
                    min: 0,
                    max: 50,
                },
            ),
            (
                "Makruk rules -combo makruk /// *Cambodian /// Ai-wok",
                OptionKind::Combo(vec!["makruk".into(), "*Cambodian".into(), "Ai-wok".into()]),
            ),
        ];
        for (text, kind) in cases {
            let o: EngineOption = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(o.kind, kind, "{text}");
            assert_eq!(o.to_string(), text);
            let feature = Feature::parse_list(&format!("option=\"{text}\""));
            assert_eq!(feature, vec![Feature::Option(o)]);
        }
        let o: EngineOption = "Randomizer (0-50) -slider 0 0 50".parse().unwrap();
        assert_eq!(o.name, "Randomizer (0-50)");
        for bad in [
            "nonsense",
            "X -spin 1 2",
            "X -check yes",
            "X-button",
            "X -spin a b c",
        ] {
            assert!(bad.parse::<EngineOption>().is_err(), "{bad}");
            assert!(
                matches!(&Feature::parse_list(&format!("option=\"{bad}\""))[0], Feature::Other { name, .. } if name == "option"),
                "{bad}"
            );
        }
    }

    #[test]
    fn option_values_are_checked() {
        let spin: EngineOption = "Hash -spin 64 1 1024".parse().unwrap();
        assert_eq!(spin.value_for(Some("128")), Ok(Some("128".into())));
        assert!(spin.value_for(Some("0")).is_err());
        assert!(spin.value_for(Some("x")).is_err());
        assert!(spin.value_for(None).is_err());
        let check: EngineOption = "Resign -check 0".parse().unwrap();
        assert_eq!(check.value_for(Some("true")), Ok(Some("1".into())));
        assert_eq!(check.value_for(Some("0")), Ok(Some("0".into())));
        assert!(check.value_for(Some("maybe")).is_err());
        let combo: EngineOption = "Style -combo Solid /// *Normal /// Risky".parse().unwrap();
        assert_eq!(combo.value_for(Some("risky")), Ok(Some("Risky".into())));
        assert_eq!(combo.value_for(Some("Normal")), Ok(Some("Normal".into())));
        assert!(combo.value_for(Some("Wild")).is_err());
        let button: EngineOption = "Clear Hash -button".parse().unwrap();
        assert_eq!(button.value_for(None), Ok(None));
        assert!(button.value_for(Some("1")).is_err());
    }

    #[test]
    fn features_start_at_the_protocol_defaults() {
        let mut f = Features::default();
        assert!(f.time && f.draw && f.reuse && f.sigint && f.sigterm);
        assert!(!f.ping && !f.setboard && !f.usermove && !f.san);
        assert!(f.plays("fischerandom"), "no variants list: every variant");
        for feat in Feature::parse_list(
            "ping=1 setboard=1 usermove=1 reuse=0 variants=\"normal\" myname=\"X\" option=\"A -check 1\" option=\"A -check 0\" foo=1",
        ) {
            let known = !matches!(feat, Feature::Other { .. });
            assert_eq!(f.apply(&feat), known, "{feat}");
        }
        assert!(f.ping && f.setboard && f.usermove && !f.reuse);
        assert!(f.plays("normal") && !f.plays("fischerandom"));
        assert_eq!(f.myname.as_deref(), Some("X"));
        assert_eq!(
            f.options.len(),
            1,
            "a second declaration replaces the first"
        );
        assert_eq!(f.options[0].kind, OptionKind::Check(false));
    }
}
