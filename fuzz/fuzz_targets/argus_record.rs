//! The EPD record reader in the Argus referee's role: any bytes as a
//! client's record (what the server reads off the wire) and as a referee's
//! record (what the client adapter reads), and the log line made of them.
//! Nothing may panic; a record that reads must write a line that reads
//! back and writes the same line again (text, not structure: an unknown
//! operation's unquoted operand may hold a stray `"`, which reads
//! differently once the operations are sorted); every log line is EPD.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_epd::{Mode, Record};
use rookery_argus::log::{log_record, Direction};
use rookery_argus::protocol::{ClientRecord, RefereeRecord, SuppliedMove};

fuzz_target!(|data: &[u8]| {
    if let Ok(rec) = ClientRecord::parse(data) {
        let line = rec.to_line();
        if !matches!(rec.sm, Some(SuppliedMove::Illegal(_))) {
            let again = ClientRecord::parse(line.as_bytes())
                .unwrap_or_else(|e| panic!("our client line does not read back: {line}: {e}"));
            assert_eq!(again.to_line(), line);
        }
    }
    if let Ok(rec) = RefereeRecord::parse(data) {
        let line = rec.to_line();
        let again = RefereeRecord::parse(line.as_bytes())
            .unwrap_or_else(|e| panic!("our referee line does not read back: {line}: {e}"));
        assert_eq!(again.to_line(), line);
    }
    let log = log_record(
        data,
        Direction::Received,
        "fuzz",
        std::time::SystemTime::UNIX_EPOCH,
    );
    Record::parse(log.as_bytes(), Mode::Lenient)
        .unwrap_or_else(|e| panic!("log line is not EPD: {log}: {e}"));
});
