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
