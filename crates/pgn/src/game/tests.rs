//! The unit tests of [`crate::game`]: comment normalisation, where
//! warnings and tags are located, the tag store.

mod comments {
    use crate::game::normalize_comment;
    use proptest::prelude::*;

    /// The plain definition: whitespace runs become one space, none at the ends.
    fn by_bytes(raw: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut space = false;
        for &b in raw {
            if b.is_ascii_whitespace() {
                space = true;
            } else {
                if space && !out.is_empty() {
                    out.push(b' ');
                }
                space = false;
                out.push(b);
            }
        }
        out
    }

    proptest! {
        #[test]
        fn comments_normalise_as_defined(raw in prop::collection::vec(
            prop::sample::select(vec![b' ', b'\t', b'\n', b'\r', 0x0c, 0x0b, b'a', b'{', 0xc3, 0xa9, 0xff]),
            0..40,
        )) {
            let want = String::from_utf8_lossy(&by_bytes(&raw)).into_owned();
            prop_assert_eq!(normalize_comment(&raw), want);
        }
    }
}

mod located_warnings {
    use crate::game::{Detail, Games};

    /// The lines and columns of each game's warnings, as text.
    fn warnings_at(pgn: &str, detail: Detail) -> Vec<String> {
        Games::new(pgn.as_bytes())
            .with_detail(detail)
            .flat_map(|g| g.expect("read from memory").warnings)
            .map(|w| format!("{}:{} {}", w.at.line, w.at.col, w.kind))
            .collect()
    }

    #[test]
    fn a_variation_or_nag_with_no_move_before_it_is_named_where_it_stands() {
        let pgn =
            "[Event \"x\"]\n[Site \"y\"]\n\n(1. d4) 1. e4 e5 *\n\n[Event \"z\"]\n\n  $3 1. e4 *\n";
        for detail in [Detail::Full, Detail::Mainline, Detail::Count] {
            assert_eq!(
                warnings_at(pgn, detail),
                [
                    "4:1 variation with no move before it, skipped",
                    "8:3 NAG with no move before it, skipped",
                ],
                "{detail:?}"
            );
        }
    }

    /// Issue 43, item 5: a pawn capture without its file is an error, not
    /// the capture; what is read only leniently is read with a warning
    /// naming the move, where it stands; the standard spellings and those
    /// python-chess reads (`0-0`, `e8Q`) are read without one.
    #[test]
    fn a_move_read_leniently_is_named_where_it_stands() {
        let games = |pgn: &str, detail| {
            Games::new(pgn.as_bytes())
                .with_detail(detail)
                .map(|g| g.expect("read from memory"))
                .collect::<Vec<_>>()
        };
        for detail in [Detail::Full, Detail::Mainline, Detail::Count] {
            let read = games("1. e4 d5 2. d5 *\n\n1. e4 d5 2. xd5 *\n", detail);
            for g in &read {
                let e = g.error.as_ref().expect("d5 is no move");
                assert_eq!((e.at.line, e.at.col), (g.at.line, 13), "{detail:?}");
                assert!(e.to_string().contains("file"), "{e}");
                assert_eq!(g.plies, 2, "{detail:?}");
            }
            let pgn = "1. e4 d5 2. ed5 Qxd5 3. Nxc3 Qxa2 *\n\n\
                [FEN \"r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1\"]\n\n1. Kg1 o-o 2. Pa3 Kh8 *\n\n\
                [FEN \"8/1P6/8/8/8/8/k6K/8 w - - 0 1\"]\n\n1. b8Q Kb2 2. Qb7 *\n";
            assert_eq!(
                warnings_at(pgn, detail),
                [
                    "1:13 move 2. ed5 read as exd5: a capture written without its x",
                    "1:25 move 3. Nxc3 read as Nc3: an x written for a move that captures nothing",
                    "5:4 move 1. Kg1 read as O-O: castling written as a king move",
                    "5:8 move 1... o-o read as O-O: a spelling that is not standard SAN",
                    "5:15 move 2. Pa3 read as a3: a spelling that is not standard SAN",
                ],
                "{detail:?}"
            );
        }
    }
}

mod tag_locations {
    use crate::game::{Detail, Games, Location};

    #[test]
    fn a_tag_is_found_where_it_was_last_given() {
        let pgn =
            "[Event \"a\"]\n[White \"x\"]\n  [Event \"b\"]\n\n1. e4 *\n\n[Site \"s\"]\n1. d4 *\n";
        for detail in [Detail::Full, Detail::Mainline, Detail::Count] {
            let games: Vec<_> = Games::new(pgn.as_bytes())
                .with_detail(detail)
                .map(|g| g.expect("read from memory"))
                .collect();
            let at = |g: usize, name: &str| {
                let Location { line, col, .. } = games[g].tag_location(name);
                (line, col)
            };
            // The repeated tag: its value and its place are the last ones.
            assert_eq!(games[0].game.tags.get("Event"), Some("b"));
            assert_eq!(at(0, "Event"), (3, 3));
            assert_eq!(at(0, "White"), (2, 1));
            // A tag the game lacks: where the game starts.
            assert_eq!(at(0, "Site"), (1, 1));
            assert_eq!(at(1, "Site"), (7, 1));
            assert_eq!(at(1, "Event"), (7, 1));
        }
    }

    /// A bad FEN tag, or a Variant tag of other rules, is an error where
    /// that tag stands, not where the game starts.
    #[test]
    fn a_bad_start_is_an_error_at_its_tag() {
        let pgn = "[Event \"a\"]\n[SetUp \"1\"]\n [FEN \"8/8 w - -\"]\n\n1. e4 *\n\n\
                   [Event \"b\"]\n[Site \"s\"]\n  [Variant \"crazyhouse\"]\n\n1. e4 *\n";
        for detail in [Detail::Full, Detail::Mainline, Detail::Count] {
            let errors: Vec<_> = Games::new(pgn.as_bytes())
                .with_detail(detail)
                .map(|g| g.expect("read from memory").error.expect("a bad start"))
                .map(|e| (e.at.line, e.at.col, e.kind.to_string()))
                .collect();
            assert_eq!((errors[0].0, errors[0].1), (3, 2), "{errors:?}");
            assert!(errors[0].2.starts_with("bad FEN tag"), "{errors:?}");
            assert_eq!((errors[1].0, errors[1].1), (9, 3), "{errors:?}");
            assert!(errors[1].2.starts_with("unsupported variant"), "{errors:?}");
        }
    }
}

mod tags_store {
    use crate::game::{name_key, Tags};
    use proptest::prelude::*;

    /// What a `Tags` is meant to be: pairs in order, names unique.
    #[derive(Default)]
    struct Model(Vec<(String, String)>);

    impl Model {
        fn insert(&mut self, name: &str, value: &str) {
            match self.0.iter_mut().find(|(n, _)| n == name) {
                Some(pair) => pair.1 = value.to_owned(),
                None => self.0.push((name.to_owned(), value.to_owned())),
            }
        }

        fn remove(&mut self, name: &str) -> Option<String> {
            let i = self.0.iter().position(|(n, _)| n == name)?;
            Some(self.0.remove(i).1)
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(String, String),
        Remove(String),
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        // Few names, so that values are replaced and pairs removed often;
        // some longer than eight bytes and alike in their first eight.
        let name = prop::sample::select(vec![
            "Event",
            "Site",
            "White",
            "Black",
            "Wh",
            "é",
            "WhiteElo",
            "WhiteElo2",
            "WhiteEloX",
        ]);
        prop_oneof![
            6 => (name.clone(), "[a-zé\"]{0,12}").prop_map(|(n, v)| Op::Insert(n.into(), v)),
            2 => name.prop_map(|n| Op::Remove(n.into())),
            1 => Just(Op::Clear),
        ]
    }

    proptest! {
        /// The key is the name's first eight bytes, zero-padded: the same
        /// key and length mean the same name up to eight bytes.
        #[test]
        fn name_key_is_the_first_eight_bytes(name in prop::collection::vec(any::<u8>(), 0..12)) {
            let mut head = [0; 8];
            let n = name.len().min(8);
            head[..n].copy_from_slice(&name[..n]);
            prop_assert_eq!(name_key(&name), u64::from_le_bytes(head));
        }

        #[test]
        fn tags_behave_as_a_list_of_unique_pairs(ops in prop::collection::vec(op(), 0..60)) {
            let mut tags = Tags::default();
            let mut model = Model::default();
            for op in ops {
                match op {
                    Op::Insert(n, v) => {
                        tags.insert(&n, v.clone());
                        model.insert(&n, &v);
                    }
                    Op::Remove(n) => prop_assert_eq!(tags.remove(&n), model.remove(&n)),
                    Op::Clear => {
                        tags.clear();
                        model.0.clear();
                    }
                }
                let pairs: Vec<(String, String)> =
                    tags.iter().map(|(n, v)| (n.to_owned(), v.to_owned())).collect();
                prop_assert_eq!(&pairs, &model.0);
                prop_assert_eq!(tags.len(), model.0.len());
                for (n, v) in &model.0 {
                    prop_assert_eq!(tags.get(n), Some(v.as_str()));
                }
                // Text left behind by replaced values stays bounded.
                let live: usize = model.0.iter().map(|(n, v)| n.len() + v.len()).sum();
                prop_assert!(tags.text.len() <= 2 * live, "{} > 2 * {live}", tags.text.len());
                // Equal to the same pairs written afresh, whatever lies in between.
                let fresh: Tags = model.0.iter().cloned().collect();
                prop_assert_eq!(&tags, &fresh);
            }
        }
    }

    #[test]
    fn debug_and_equality_speak_of_the_pairs() {
        let mut a = Tags::default();
        for (name, value) in [("Event", "long value"), ("Site", "s"), ("Event", "e")] {
            a.insert(name, value.into());
        }
        let b: Tags = [("Event", "e"), ("Site", "s")].into_iter().collect();
        assert_eq!(a, b);
        assert_eq!(format!("{a:?}"), r#"Tags([("Event", "e"), ("Site", "s")])"#);
        let c: Tags = [("Site", "s"), ("Event", "e")].into_iter().collect();
        assert_ne!(a, c, "the order of the pairs counts");
    }
}
