//! The translation of peers' lines, each compared with the typed
//! arguments clap reads from the equivalent rookery line.

use super::*;
use clap::CommandFactory;

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

/// What [`translate`] reads from a peer's line.
fn read(s: &str) -> Result<PeerLine, PeerError> {
    translate(crate::Cli::command(), &words(s))
}

/// The match a peer's line asks for.
#[track_caller]
fn ok(s: &str) -> Args {
    match read(s) {
        Ok(PeerLine::Match(args)) => *args,
        other => panic!("{s}: {other:?}"),
    }
}

/// The match clap reads from a rookery line (`match`'s flags), the
/// engines grouped as `main` groups them.
#[track_caller]
fn rookery(s: &str) -> Args {
    let argv = ["rookery", "match"]
        .into_iter()
        .map(String::from)
        .chain(words(s));
    let matches = crate::Cli::command()
        .try_get_matches_from(argv)
        .unwrap_or_else(|e| panic!("{s}: {e}"));
    let sub = matches.subcommand_matches("match").expect("match");
    let mut args = Args::from_arg_matches(sub).expect("match's arguments");
    args.engine_groups = super::super::engine_groups(sub);
    args
}

/// The peer's line `peer` is the match of rookery's line `want`.
#[track_caller]
fn same(peer: &str, want: &str) {
    let (got, want_args) = (format!("{:#?}", ok(peer)), format!("{:#?}", rookery(want)));
    assert!(
        got == want_args,
        "{peer}\n is not {want}:\n{got}\n{want_args}"
    );
}

/// The peer's line is refused naming `word`; the message.
#[track_caller]
fn refused(s: &str, word: &str) -> String {
    match read(s) {
        Err(PeerError::Word(e)) => {
            assert_eq!(e.word, word, "{s}: {e}");
            e.to_string()
        }
        other => panic!("{s}: refused? {other:?}"),
    }
}

const TWO: &str = "-engine cmd=a -engine cmd=b";
/// [`TWO`] read as cutechess-cli's, with its defaults (1 round of 1
/// game, as rookery's).
const CUTE: &str = "--engine cmd=a --engine cmd=b --ratinginterval 0 --output cutechess";
/// [`TWO`] read as fastchess's (each engine named after its program),
/// with its defaults but the schedule.
const FAST: &str =
    "--engine cmd=a name=a --engine cmd=b name=b --ratinginterval 10 --output fastchess";

/// [`CUTE`] and `rest`.
fn cr(rest: &str) -> String {
    format!("{CUTE} {rest}")
}

/// [`FAST`], fastchess's default schedule, and `rest`.
fn fr(rest: &str) -> String {
    format!("{FAST} --rounds 2 --games 2 {rest}")
}

#[test]
fn recognising_a_peer_line() {
    assert!(is_peer_line(&words("-engine cmd=a")));
    assert!(is_peer_line(&words("fastchess --json")));
    assert!(is_peer_line(&words("/opt/bin/cutechess-cli")));
    assert!(!is_peer_line(&words("--engine cmd=a --srand -5")));
    assert_eq!(
        Dialect::of_program("C:\\x\\fastchess.exe"),
        Some(Dialect::Fastchess)
    );
    assert_eq!(Dialect::of_program("stockfish"), None);
    // OpenBench's builds.
    assert_eq!(
        Dialect::of_program("./fastchess-ob"),
        Some(Dialect::Fastchess)
    );
    assert_eq!(
        Dialect::of_program("cutechess-ob.exe"),
        Some(Dialect::Cutechess)
    );
}

#[test]
fn engines_get_each_after_their_own_words() {
    same(
        "cutechess-cli -engine cmd=a name=A tc=1+0.1 -engine cmd=b -each tc=2+0.2 option.Hash=16",
        "--engine cmd=a name=A tc=1+0.1 tc=2+0.2 option.Hash=16 \
         --engine cmd=b tc=2+0.2 option.Hash=16 --rounds 1 --games 1 \
         --ratinginterval 0 --output cutechess",
    );
    // rookery's own engines follow the tool's (without -each's words).
    same(
        "cutechess-cli -engine cmd=a --engine cmd=b -each tc=1",
        "--engine cmd=a tc=1 --engine cmd=b --ratinginterval 0 --output cutechess",
    );
}

#[test]
fn rounds_games_and_repeat_in_each_dialect() {
    // cutechess-cli: -repeat repeats openings, -games multiplies.
    same(
        &format!("cutechess-cli {TWO} -games 2 -rounds 500 -repeat"),
        &cr("--rounds 500 --games 2"),
    );
    same(
        &format!("cutechess-cli {TWO} -rounds 100 -repeat"),
        &cr("--rounds 50 --games 2"),
    );
    same(
        &format!("cutechess-cli {TWO} -rounds 10 -games 2"),
        &cr("--rounds 20 --games 1"),
    );
    same(
        &format!("cutechess-cli {TWO} -rounds 9 -repeat 3"),
        &cr("--rounds 3 --games 3"),
    );
    same(&format!("cutechess-cli {TWO}"), &cr("--rounds 1 --games 1"));
    refused(
        &format!("cutechess-cli {TWO} -rounds 9 -repeat"),
        "-repeat 2",
    );
    // fastchess: rounds of -games games; -repeat is -games 2.
    // fastchess's -repeat N is -games N.
    same(
        &format!("fastchess {TWO} -rounds 10 -repeat 2"),
        &format!("{FAST} --rounds 10 --games 2"),
    );
    refused(
        &format!("{TWO} -rounds 50 -repeat 2"),
        "-rounds/-games/-repeat",
    );
    same(
        &format!("fastchess {TWO} -rounds 100 -repeat"),
        &format!("{FAST} --rounds 100 --games 2"),
    );
    same(
        &format!("fastchess {TWO} -rounds 100 -games 2"),
        &format!("{FAST} --rounds 100 --games 2"),
    );
    same(
        &format!("fastchess {TWO}"),
        &format!("{FAST} --rounds 2 --games 2"),
    );
    same(
        &format!("fastchess {TWO} -games 50 -rounds 2"),
        &format!("{FAST} --rounds 50 --games 2"),
    );
    refused(&format!("fastchess {TWO} -games 50 -rounds 4"), "-games 4");
    // Both read it alike: cutechess-cli's reading, no first word needed.
    same(
        &format!("{TWO} -games 2 -rounds 500 -repeat"),
        &cr("--rounds 500 --games 2"),
    );
    // They differ: a first word is asked for.
    let e = refused(
        &format!("{TWO} -rounds 100 -repeat"),
        "-rounds/-games/-repeat",
    );
    assert!(
        e.contains("cutechess-cli plays 100") && e.contains("fastchess 200"),
        "{e}"
    );
    // A word of one tool settles it.
    same(
        &format!("{TWO} -rounds 100 -repeat -output format=cutechess"),
        "--engine cmd=a name=a --engine cmd=b name=b --rounds 100 --games 2 \
         --ratinginterval 10 --output cutechess",
    );
    refused("-rounds 0", "-rounds 0");
    refused("-games x", "-games x");
    // Three engines (cutechess-cli): openings repeat within an encounter.
    same(
        "cutechess-cli -engine cmd=a -engine cmd=b -engine cmd=c -games 4 -rounds 3 -repeat",
        "--engine cmd=a --engine cmd=b --engine cmd=c --rounds 6 --games 2 \
         --ratinginterval 0 --output cutechess",
    );
    // More than rookery's --rounds and --games take.
    refused(
        &format!("cutechess-cli {TWO} -rounds 20000000"),
        "-rounds/-games/-repeat",
    );
}

#[test]
fn dialect_words_and_conflicts() {
    same(&format!("{TWO} -pgnout g.pgn"), &cr("--pgnout g.pgn"));
    same(
        &format!("{TWO} -pgnout file=g.pgn"),
        &fr("--pgnout file=g.pgn"),
    );
    same(
        &format!("{TWO} -pgnout file=g.pgn -output format=cutechess"),
        "--engine cmd=a name=a --engine cmd=b name=b --rounds 2 --games 2 \
         --ratinginterval 10 --output cutechess --pgnout file=g.pgn",
    );
    same(
        "-engine conf=A -engine conf=B",
        "--engine conf=A --engine conf=B --ratinginterval 0 --output cutechess",
    );
    same(
        "-engine cmd=a args=x -engine cmd=b",
        "--engine cmd=a args=x name=a --engine cmd=b name=b --rounds 2 --games 2 \
         --ratinginterval 10 --output fastchess",
    );
    let e = refused(
        &format!("{TWO} -pgnout g.pgn -report penta=false"),
        "-pgnout g.pgn ... -report penta=false",
    );
    assert!(e.contains("one line is one tool's"), "{e}");
    let e = refused(
        &format!("cutechess-cli {TWO} -output format=fastchess"),
        "-output format=fastchess",
    );
    assert!(e.contains("cutechess-cli does not have it"), "{e}");
    refused(
        &format!("fastchess {TWO} -pgnout g.pgn min"),
        "-pgnout g.pgn min",
    );
    // weather-factory gives fastchess a bare file, as to cutechess-cli.
    same(
        &format!("fastchess {TWO} -pgnout tuner/games.pgn"),
        &fr("--pgnout tuner/games.pgn"),
    );
    refused("fastchess -engine cmd=a ponder -engine cmd=b", "ponder");
    // Defaults of each: the rating interval.
    same(&format!("fastchess {TWO}"), &fr(""));
    same(&format!("cutechess-cli {TWO}"), &cr(""));
    same(
        &format!("fastchess {TWO} -ratinginterval 5"),
        "--engine cmd=a name=a --engine cmd=b name=b --rounds 2 --games 2 \
         --output fastchess --ratinginterval 5",
    );
}

/// [`TWO`] and `rest`, cutechess-cli's line.
fn c(rest: &str) -> String {
    format!("cutechess-cli {TWO} {rest}")
}

/// [`TWO`] and `rest`, fastchess's line.
fn f(rest: &str) -> String {
    format!("fastchess {TWO} {rest}")
}

/// Every option, word by word: how the games are played and end.
#[test]
fn options_of_play_and_rules() {
    same(&c("-variant fischerandom"), &cr("--variant fischerandom"));
    refused(&c("-variant atomic"), "-variant atomic");
    same(&c("-concurrency 4"), &cr("--concurrency 4"));
    refused(&c("-concurrency 0"), "-concurrency 0");
    refused(&c("-concurrency -2"), "-concurrency -2");
    refused(&c("-concurrency 2000"), "-concurrency 2000");
    same(
        &c("-draw movenumber=40 movecount=8 score=10"),
        &cr("--draw movenumber=40 movecount=8 score=10"),
    );
    same(
        &f("-draw movenumber=40"),
        &fr("--draw movenumber=40 movecount=1 score=0"),
    );
    same(
        &c("-resign movecount=3 score=600 twosided=true"),
        &cr("--resign movecount=3 score=600 twosided=true"),
    );
    same(
        &f("-resign score=600"),
        &fr("--resign score=600 movecount=1"),
    );
    same(&c("-maxmoves 150"), &cr("--maxmoves 150"));
    same(&c("-maxmoves 0"), &cr(""));
    for tb in [
        "-tb /syzygy",
        "-tbpieces 6",
        "-tbignore50",
        "-tbadjudicate BOTH",
    ] {
        let e = refused(&c(tb), tb);
        assert!(e.contains("tablebase adjudication is not supported"), "{e}");
    }
    same(&c("-event Test"), &cr("--event Test"));
    same(&c("-site Here"), &cr("--site Here"));
    refused(&c("-event"), "-event");
    same(
        &c("-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05"),
        &cr("--sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 model=bayesian"),
    );
    same(
        &f("-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05"),
        &fr("--sprt elo0=0 elo1=5 alpha=0.05 beta=0.05"),
    );
    same(
        &f("-sprt elo0=0 elo1=5 model=normalized"),
        &fr("--sprt elo0=0 elo1=5 model=normalized"),
    );
    refused(&f("-sprt elo0=0 elo1=5 model=bayesian"), "model=bayesian");
}

/// Every option, word by word: what is printed and written, and the books refused.
#[test]
fn options_of_reports_books_and_files() {
    same(
        &c("-ratinginterval 10"),
        "--engine cmd=a --engine cmd=b --output cutechess --ratinginterval 10",
    );
    same(&f("-scoreinterval 5"), &fr("--scoreinterval 5"));
    same(&c("-outcomeinterval 5"), &cr("--outcome-interval 5"));
    same(&c("-resultformat wide2"), &cr("--result-format wide2"));
    refused(&c("-bookmode ram"), "-bookmode ram");
    refused(&c("-engines"), "-engines");
    same(&c("-debug"), &cr("--log - --log-format cutechess"));
    refused(&c("-debug all"), "-debug all");
    same(
        &c("-openings file=b.epd format=epd order=random plies=8 start=3 policy=round"),
        &cr("--openings file=b.epd format=epd order=random plies=8 start=3 policy=round"),
    );
    same(
        &format!("{TWO} -openings file=b.pgn policy=encounter"),
        &cr("--openings file=b.pgn policy=encounter"),
    );
    same(&c("-pgnout g.pgn min fi"), &cr("--pgnout g.pgn min fi"));
    same(
        &f("-pgnout file=g.pgn min=true notation=san"),
        &fr("--pgnout file=g.pgn min=true notation=san"),
    );
    same(&c("-epdout e.epd"), &cr("--epdout e.epd"));
    same(&f("-epdout file=e.epd append=true"), &fr("--epdout e.epd"));
    refused(&f("-epdout file=e.epd append=false"), "append=false");
    refused(&f("-epdout append=true"), "-epdout append=true");
}

/// Every option, word by word: recovery, sides, seeds, waits and tournaments.
#[test]
fn options_of_sides_seeds_and_tournaments() {
    same(&c("-recover"), &cr("--recover"));
    refused(&c("-recover yes"), "-recover yes");
    same(&c("-noswap"), &cr("--noswap"));
    same(&c("-reverse"), &cr("--reverse"));
    same(&c("-srand 42"), &cr("--srand 42"));
    same(&c("-srand -1"), &cr("--srand 18446744073709551615"));
    same(
        &c("-srand -123456"),
        &cr(&format!("--srand {}", (-123456i64) as u64)),
    );
    refused(&c("-srand x"), "-srand x");
    same(&c("-wait 250"), &cr("--wait 250"));
    same(&c("-seeds 1"), &cr("--seeds 1"));
    same(
        &c("-tournament knockout -seeds 2"),
        &cr("--tournament knockout --seeds 2"),
    );
    same(
        &c("-tournament round-robin"),
        &cr("--tournament round-robin"),
    );
    same(&f("-tournament roundrobin"), &fr("--tournament roundrobin"));
    same(&c("-tournament gauntlet"), &cr("--tournament gauntlet"));
    same(&c("-tournament knockout"), &cr("--tournament knockout"));
    // An encounter of two games without -repeat (engines' gauntlet
    // scripts): one block of two games.
    same(
        &c("-tournament knockout -games 2"),
        &cr("--tournament knockout --rounds 1 --games 2"),
    );
    refused(
        &c("-tournament knockout -games 2 -openings file=b.epd"),
        "-openings",
    );
    same(
        &c("-tournament knockout -games 2 -repeat 2 -openings file=b.epd"),
        &cr("--tournament knockout --rounds 1 --games 2 --openings file=b.epd"),
    );
    refused(&c("-tournament pyramid"), "-tournament pyramid");
}

/// Every option, word by word: fastchess's, help and version, words refused, rookery's own flags.
#[test]
fn fastchess_options_and_the_rest() {
    same(&f("-output format=fastchess"), &fr(""));
    refused(&f("-output format=json"), "format=json");
    same(&f("-report penta=false"), &fr("--report penta=false"));
    refused(&f("-report penta=maybe"), "penta=maybe");
    same(&f("-config outname=m.journal"), &fr("--journal m.journal"));
    same(
        "fastchess -config file=m.journal",
        "--output fastchess --resume m.journal",
    );
    refused(&f("-config file=m.journal"), "-config file=");
    // weather-factory's words: no configuration loaded, none discarded.
    same(
        &f("-config discard=true outname=t/c.json"),
        &fr("--journal t/c.json"),
    );
    refused(&f("-config file=m.json discard=true"), "discard=true");
    // fishtest's and OpenBench's.
    same(&f("-testEnv"), &fr(""));
    same(&f("-crc32 pgn=true"), &fr("--crc32"));
    same(&f("-crc32 pgn=false"), &fr(""));
    refused(&f("-crc32 epd=true"), "epd=true");
    same(&f("-check-mate-pvs"), &fr("--check-mate-pvs"));
    same(
        &f("-log file=l.txt level=warn engine=true"),
        &fr("--log l.txt"),
    );
    refused(&f("-log file=l.txt compress=true"), "compress=true");
    refused(&f("-log level=info"), "-log level=info");
    same(&f("-autosaveinterval 20"), &fr(""));
    same(&f("-force-concurrency"), &fr(""));
    assert!(matches!(read(&c("-help")), Ok(PeerLine::Help)));
    assert!(matches!(read("-h"), Ok(PeerLine::Help)));
    assert!(matches!(
        read("fastchess -engine cmd=a -version"),
        Ok(PeerLine::Version)
    ));
    assert!(matches!(read(&c("-version")), Ok(PeerLine::Version)));
    assert!(matches!(read(&c("--help")), Ok(PeerLine::Help)));
    for w in [
        "-quick cmd=a",
        "-use-affinity",
        "-strict",
        "-startup-ms 100",
        "-show-latency",
    ] {
        refused(&f(w), w);
    }
    refused(&c("-frobnicate 3"), "-frobnicate");
    refused(&format!("stray {TWO}"), "stray");
    // rookery's own flags are clap's, values and all.
    same(&c("--json --srand 7"), &cr("--json --srand 7"));
    assert!(matches!(read(&c("--frobnicate")), Err(PeerError::Clap(_))));
    assert!(matches!(
        read(&c("--concurrency 0")),
        Err(PeerError::Clap(_))
    ));
}

/// A setting given twice, by the tool's word and rookery's flag or by
/// two words, is refused naming both; rookery's flag wins over a
/// dialect's default.
#[test]
fn a_setting_given_twice_is_refused() {
    let e = refused(
        &c("-concurrency 2 --concurrency 3"),
        "-concurrency 2 ... --concurrency 3",
    );
    assert!(e.contains("the same setting twice"), "{e}");
    refused(
        &c("-concurrency 2 -concurrency 3"),
        "-concurrency 2 ... -concurrency 3",
    );
    refused(
        &c("-debug --log-format rookery"),
        "-debug ... --log-format rookery",
    );
    refused(&c("-debug -debug"), "-debug ... -debug");
    refused(
        &c("-rounds 5 --rounds 3"),
        "-rounds/-games/-repeat ... --rounds 3",
    );
    refused(&c("--games 3"), "-rounds/-games/-repeat ... --games 3");
    refused(
        &c("-pgnout a.pgn --pgnout b.pgn"),
        "-pgnout a.pgn ... --pgnout b.pgn",
    );
    refused(
        &c("-sprt elo0=0 elo1=5 --sprt elo0=0 elo1=5"),
        "-sprt elo0=0 elo1=5 ... --sprt elo0=0 elo1=5",
    );
    // Words that add up, as rookery's flags do.
    same(
        &c("-openings file=b.epd -openings order=random"),
        &cr("--openings file=b.epd order=random"),
    );
    // Defaults give way.
    same(
        &c("--output rookery --ratinginterval 3"),
        "--engine cmd=a --engine cmd=b --output rookery --ratinginterval 3",
    );
    // --repeat is not a word's: it stays rookery's.
    same(&c("--repeat"), &cr("--repeat"));
}

/// A resumed match takes only what says how to print.
#[test]
fn a_resume_takes_no_plan() {
    let e = refused(
        "fastchess -config file=j -concurrency 2",
        "-concurrency 2 ... -config file=j",
    );
    assert!(e.contains("journal records"), "{e}");
    refused(
        "fastchess -config file=j --concurrency 2",
        "--concurrency 2 ... -config file=j",
    );
    refused("fastchess -wait 5 --resume j", "-wait 5 ... --resume j");
    refused("fastchess -engine cmd=a --resume j", "--resume");
    same(
        "fastchess -config file=j -scoreinterval 3 --json",
        "--output fastchess --resume j --scoreinterval 3 --json",
    );
    same("fastchess --resume j", "--output fastchess --resume j");
}

#[test]
fn fastchess_names_an_engine_after_its_program() {
    same(
        "fastchess -engine cmd=/opt/sf/stockfish.x86 -engine cmd=b name=B",
        "--engine cmd=/opt/sf/stockfish.x86 name=stockfish --engine cmd=b name=B \
         --rounds 2 --games 2 --ratinginterval 10 --output fastchess",
    );
    same(
        "cutechess-cli -engine cmd=/opt/sf/stockfish -engine cmd=b",
        "--engine cmd=/opt/sf/stockfish --engine cmd=b --rounds 1 --games 1 \
         --ratinginterval 0 --output cutechess",
    );
}

#[test]
fn seeds_negative_and_large() {
    assert_eq!(seed("0"), Some(0));
    assert_eq!(seed("18446744073709551615"), Some(u64::MAX));
    assert_eq!(seed("-1"), Some(u64::MAX));
    assert_eq!(seed("-9223372036854775808"), Some(1 << 63));
    assert_eq!(seed("18446744073709551616"), None);
    assert_eq!(seed("1.5"), None);
}
