//! The database's scan queries from any text: a Scoutfish query (JSON, as
//! `db search --query` and the server's `/search?query=` read it), a
//! sub-FEN, an imbalance, a SAN move pattern, a set of pieces. Nothing
//! may panic; a query that reads adds its game tests to criteria.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_db::scan::{Imbalance, MovePattern, Roles, SubFen};
use rookery_db::scout::ScoutQuery;
use rookery_pgn::filter::Criteria;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(q) = text.parse::<ScoutQuery>() {
        let _ = q.pattern.tests_plies();
        let _ = q.add_to(&mut Criteria::default());
    }
    let _ = text.parse::<SubFen>();
    let _ = text.parse::<Imbalance>();
    let _ = text.parse::<MovePattern>();
    let _ = text.parse::<Roles>();
});
