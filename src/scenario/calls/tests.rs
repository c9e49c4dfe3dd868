use super::*;

fn call(id: &str, label: &str, kind: &str, bytes: f64) -> Call {
    Call {
        id: id.into(),
        label: label.into(),
        kind: kind.into(),
        bytes,
        tokens: 0.0,
        output_tokens: 0.0,
        pinned: false,
        segment: 1,
        gap_s: 0.0,
        measured: false,
        detail: None,
    }
}

#[test]
fn every_call_comes_back_as_pushed() {
    let mut given = vec![
        call("1", "cmd 1", "tool", 10.0),
        call("2", "cmd 2", "tool", 20.5),
        call("3", "", "web_search", 4e9),
    ];
    given[1].pinned = true;
    given[1].segment = 2;
    given[2].gap_s = 301.25;
    given[2].detail = Some(Box::new(CallDetail {
        tool: Some("Bash".into()),
        ..CallDetail::default()
    }));
    let calls = Calls::from(given.clone());
    assert_eq!(calls.len(), 3);
    assert_eq!(calls.to_vec(), given);
    assert_eq!(calls.at(2).tool(), Some("Bash"));
    assert_eq!(calls.at(0).detail, None);
    assert_eq!(&*calls.at(1).id, "2");
    assert_eq!(calls.at(1).kind, "tool");
    assert_eq!(calls.at(2).kind, "web_search");
}

#[test]
fn ids_that_are_not_plain_numbers_turn_the_column_to_text() {
    let given = vec![
        call("1", "a", "tool", 1.0),
        call("2", "b", "tool", 1.0),
        call("07", "c", "tool", 1.0),
        call("read", "d", "tool", 1.0),
    ];
    let calls = Calls::from(given);
    let ids: Vec<String> = calls.iter().map(|c| c.id.to_string()).collect();
    assert_eq!(ids, ["1", "2", "07", "read"]);
    assert!(matches!(calls.ids, Ids::Text(_)));
}

#[test]
fn a_trace_of_numbered_calls_holds_a_few_bytes_a_call() {
    let calls: Calls = (1..=1000u32)
        .map(|n| {
            call(
                &n.to_string(),
                &format!("cmd {n}"),
                "tool",
                f64::from(n * 7),
            )
        })
        .collect();
    assert!(matches!(calls.ids, Ids::Numbers(Wholes::Counting(1))));
    assert!(matches!(calls.kind, Wholes::Const(0)));
    assert!(matches!(calls.bytes, Reals::Whole(_)));
    assert!(matches!(calls.segment, Wholes::Const(1)));
    assert!(calls.details.is_empty());
    assert_eq!(&*calls.at(999).id, "1000");
    assert_eq!(calls.at(999).label, "cmd 1000");
    assert_eq!(calls.at(999).bytes, 7000.0);
}

#[test]
fn only_plain_decimals_are_numbers() {
    for (id, n) in [
        ("0", Some(0)),
        ("7", Some(7)),
        ("18446744073709551615", Some(u64::MAX)),
    ] {
        assert_eq!(decimal(id), n, "{id}");
    }
    for id in [
        "",
        "07",
        "+7",
        "-1",
        "7.0",
        " 7",
        "18446744073709551616",
        "٣",
    ] {
        assert_eq!(decimal(id), None, "{id}");
    }
}

#[test]
fn id_derefs_and_compares_as_its_text() {
    assert_eq!(&*Id::number(0), "0");
    assert_eq!(&*Id::number(u64::MAX), "18446744073709551615");
    assert_eq!(Id::number(42), Id::text("42"));
    assert_eq!(format!("[{:>4}]", Id::number(7)), "[   7]");
    assert_eq!(format!("{:?}", Id::text("a")), "\"a\"");
}

mod any_calls {
    use super::*;
    use proptest::prelude::*;

    /// Sizes as traces and logs give them, and the values a column must not mangle.
    fn size() -> impl Strategy<Value = f64> {
        prop_oneof![
            Just(0.0),
            Just(-0.0),
            Just(4_294_967_295.0),
            Just(4_294_967_296.0),
            Just(1e15),
            (0u32..5).prop_map(f64::from),
            (0u64..(1 << 40)).prop_map(|n| n as f64),
            (0.0f64..1e6),
        ]
    }

    fn id() -> impl Strategy<Value = String> {
        prop_oneof![
            (0u64..40).prop_map(|n| n.to_string()),
            Just(u64::MAX.to_string()),
            Just("07".to_string()),
            "[a-z0-9]{1,6}",
        ]
    }

    fn call() -> impl Strategy<Value = Call> {
        (
            (
                id(),
                "[a-z ]{0,8}",
                prop_oneof![Just("tool"), Just("web_search"), Just("doc")],
            ),
            (size(), size(), size(), size()),
            (
                any::<bool>(),
                any::<bool>(),
                prop_oneof![Just(1u64), 0u64..5, Just(u64::MAX)],
            ),
            proptest::option::of("[A-Z][a-z]{0,5}"),
        )
            .prop_map(
                |(
                    (id, label, kind),
                    (bytes, tokens, output_tokens, gap_s),
                    (pinned, measured, segment),
                    tool,
                )| Call {
                    id: id.as_str().into(),
                    label: label.as_str().into(),
                    kind: kind.into(),
                    bytes,
                    tokens,
                    output_tokens,
                    pinned,
                    segment,
                    gap_s,
                    measured,
                    detail: tool.map(|t| {
                        Box::new(CallDetail {
                            tool: Some(t.as_str().into()),
                            ..CallDetail::default()
                        })
                    }),
                },
            )
    }

    /// Every field of `calls` is that of `given`, sizes bit for bit.
    fn same(calls: &Calls, given: &[Call]) -> Result<(), TestCaseError> {
        prop_assert_eq!(calls.len(), given.len());
        for (i, (got, want)) in calls.iter().zip(given).enumerate() {
            prop_assert_eq!(&*got.id, want.id.as_str());
            prop_assert_eq!(got.label, want.label.as_str());
            prop_assert_eq!(got.kind, &*want.kind);
            for (a, b) in [
                (got.bytes, want.bytes),
                (got.tokens, want.tokens),
                (got.output_tokens, want.output_tokens),
                (got.gap_s, want.gap_s),
            ] {
                prop_assert_eq!(a.to_bits(), b.to_bits(), "call {}", i);
            }
            prop_assert_eq!(
                (got.pinned, got.measured, got.segment),
                (want.pinned, want.measured, want.segment)
            );
            prop_assert_eq!(got.detail, want.detail.as_deref());
        }
        let kinds: Vec<&str> = calls.kinds().collect();
        let mut first_use: Vec<&str> = Vec::new();
        for c in given {
            if !first_use.contains(&&*c.kind) {
                first_use.push(&c.kind);
            }
        }
        prop_assert_eq!(kinds, first_use);
        Ok(())
    }

    proptest! {
        /// Calls read in two parts and appended are the calls pushed one by one, wherever
        /// the parts meet and whatever the layouts of their columns.
        #[test]
        fn appended_parts_are_the_calls_pushed_one_by_one(given in proptest::collection::vec(call(), 0..24)) {
            for k in 0..=given.len() {
                let mut calls = Calls::from(given[..k].to_vec());
                calls.append(Calls::from(given[k..].to_vec()));
                same(&calls, &given)?;
                // And pushing goes on from there.
                let mut more = calls.clone();
                for c in &given {
                    more.push(c.clone());
                }
                let twice: Vec<Call> = given.iter().chain(&given).cloned().collect();
                same(&more, &twice)?;
            }
        }

        /// Whatever the calls, every field comes back as pushed (sizes bit for bit), and
        /// the positions of ids are where the calls are.
        #[test]
        fn every_call_comes_back_bit_for_bit(given in proptest::collection::vec(call(), 0..40)) {
            let calls = Calls::from(given.clone());
            same(&calls, &given)?;
            for (i, want) in given.iter().enumerate() {
                let sizes = calls.sizes(i, &Terms::default());
                prop_assert_eq!(sizes.bytes.to_bits(), want.bytes.to_bits());
            }
            // The read-ahead loop gives what one call at a time gives, whatever the layout.
            let terms = Terms::default();
            let folded = calls.fold_sizes(0, calls.len(), &terms, Vec::new(), |mut v, i, s| {
                v.push((i, s));
                v
            });
            for (i, s) in folded {
                let one = calls.sizes(i, &terms);
                prop_assert_eq!(
                    (s.bytes.to_bits(), s.result_tokens.to_bits(), s.output_tokens.to_bits(), s.own.0.to_bits(), s.own.1.to_bits()),
                    (one.bytes.to_bits(), one.result_tokens.to_bits(), one.output_tokens.to_bits(), one.own.0.to_bits(), one.own.1.to_bits())
                );
            }
            let ids: Vec<&str> = given.iter().map(|c| c.id.as_str()).collect();
            let found = calls.positions(&ids);
            for (id, &at) in &found {
                prop_assert_eq!(given[at as usize].id.as_str(), *id);
            }
            prop_assert_eq!(found.len(), ids.iter().collect::<std::collections::HashSet<_>>().len());
        }
    }
}
