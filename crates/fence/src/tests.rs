use super::*;

fn fence(info: &str, body: &str) -> Fence {
    check(info, body).unwrap_or_else(|e| panic!("{info}: {e}"))
}

#[test]
fn settings_are_read_from_the_info_string() {
    let s = parse_info(r#"bumplab allocator=bump-scope-up target=wasm32 capacity=512 min-align=8 step=2 caption="a \"quoted\" caption" height=400 theme=dark"#).unwrap();
    assert_eq!(s.allocator, "bump-scope-up");
    assert_eq!(s.target, "wasm32");
    assert_eq!(s.capacity, Some(512));
    assert_eq!(s.min_align, Some(8));
    assert_eq!(s.step, Some(2));
    assert_eq!(s.caption.as_deref(), Some("a \"quoted\" caption"));
    assert_eq!(s.height, 400);
    assert_eq!(s.theme, Some(Theme::Dark));
    assert!(s.figure);
    assert!(!parse_info("bumplab live").unwrap().figure);
    assert!(!parse_info("bumplab figure=no").unwrap().figure);
    assert_eq!(parse_info("bumplab").unwrap(), Settings::default());
}

#[test]
fn errors_name_the_column_of_the_word_at_fault() {
    let err = |info: &str| match parse_info(info) {
        Err(FenceError::Info { column, message }) => (column, message),
        other => panic!("{info}: {other:?}"),
    };
    assert_eq!(err("bumplab allocater=bumpalo").0, 9);
    assert!(err("bumplab allocater=bumpalo")
        .1
        .contains("unknown setting 'allocater'"));
    let (column, message) = err("bumplab allocator=bumpalo2");
    assert_eq!(column, 19);
    assert!(
        message.contains("unknown allocator 'bumpalo2'"),
        "{message}"
    );
    assert_eq!(err("bumplab step=x").0, 14);
    assert_eq!(
        err("bumplab min-align=3").1,
        "min-align must be a power of two, not 3"
    );
    assert_eq!(err(r#"bumplab caption="open"#).0, 17);
    assert_eq!(err("bumplab step=1 step=2").0, 16);
    assert_eq!(
        err("bumplab compare=bumpalo").1,
        "compare lists 2 to 4 allocators, comma-separated, not 1"
    );
    assert_eq!(err("bumplab compare=bumpalo,nope").0, 25);
    assert_eq!(
        err("bumplab theme=blue").1,
        "theme is light, dark or auto, not 'blue'"
    );
    assert!(err("bumplabx").1.contains("starts with the word"));
}

#[test]
fn the_program_is_checked_and_its_ops_counted() {
    let f = fence("bumplab", "a = alloc 8\nrepeat 3 {\n  b = alloc u64\n}\n");
    assert_eq!(f.ops, 4);
    assert_eq!(f.step(), 4);
    assert_eq!(
        fence("bumplab step=2", "a = alloc 8\nb = alloc 8\nc = alloc 8").step(),
        2
    );
    assert_eq!(fence("bumplab step=9", "a = alloc 8").step(), 1);
    match check("bumplab", "a = alloc 8\nb = allok 8\n") {
        Err(FenceError::Program {
            line,
            column,
            message,
        }) => {
            assert_eq!((line, column), (2, 5), "{message}");
        }
        other => panic!("{other:?}"),
    }
    match check("bumplab allocator=fitzgen-down min-align=8", "a = alloc 8") {
        Err(FenceError::Info { message, .. }) => {
            assert!(message.starts_with("fitzgen-down: "), "{message}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn compare_columns_take_the_fence_target_and_name_the_first_allocator() {
    let f = fence(
        "bumplab target=wasm32 compare=hinckley-up,fitzgen-down:64:-:256",
        "a = alloc 8",
    );
    assert_eq!(f.settings.allocator, "hinckley-up");
    assert_eq!(
        f.settings.compare,
        vec![
            Column {
                allocator: "hinckley-up".into(),
                target: "wasm32".into(),
                min_align: None,
                capacity: None
            },
            Column {
                allocator: "fitzgen-down".into(),
                target: "64".into(),
                min_align: None,
                capacity: Some(256)
            },
        ]
    );
    assert_eq!(
        title(&f),
        "Bump Lab: hinckley-up vs fitzgen-down, op 1 of 1"
    );
    assert!(share_hash(&f).contains("&x=hinckley-up:wasm32:-:-,fitzgen-down:64:-:256&"));
}

#[test]
fn the_link_is_the_share_links_short_form() {
    let f = fence(
        "bumplab allocator=bumpalo capacity=256 step=1",
        "# a & b \"ü\" 50%\na = alloc 24",
    );
    assert_eq!(
        share_hash(&f),
        "v1?a=bumpalo&t=64&c=256&s=1&p=%23+a+%26+b+%22%C3%BC%22+50%25%0Aa+=+alloc+24&end"
    );
}

#[test]
fn the_html_is_one_block_with_the_element_its_link_and_its_height() {
    let f = fence(
        "bumplab allocator=bumpalo caption=\"{{ b }} & <c>\" height=280",
        "a = alloc 8\n\nb = alloc u64\n",
    );
    let out = Output {
        base: "/bump-lab/".into(),
        script: true,
        fallback_svg: Some("<svg>\n\n</svg>".into()),
    };
    let h = html(&f, &out);
    assert!(!h.contains("\n\n"), "no blank line:\n{h}");
    assert!(h.starts_with("<div class=\"bumplab-figure\" style=\"min-height:280px\">\n<script type=\"module\" src=\"/bump-lab/bump-lab.js\"></script>\n<bump-lab program=\"a = alloc 8&#10;&#10;b = alloc u64\" allocator=\"bumpalo\" target=\"64\" step=\"2\" figure caption=\"&#123;&#123; b &#125;&#125; &amp; &lt;c&gt;\""), "{h}");
    assert!(h.contains("<a href=\"/bump-lab/index.html#v1?a=bumpalo&amp;t=64&amp;s=2&amp;p=a+=+alloc+8%0A%0Ab+=+alloc+u64&amp;end\"><img src=\"data:image/svg+xml;base64,PHN2Zz4KCjwvc3ZnPg==\""), "{h}");
    assert!(!h.contains("{{"));
    let plain = html(
        &f,
        &Output {
            base: "".into(),
            script: false,
            fallback_svg: None,
        },
    );
    assert!(!plain.contains("<script"));
}

#[test]
fn an_error_keeps_the_program_readable() {
    let (e, h) = render(
        "bumplab step=x",
        "a = alloc 8\nb = alloc 8\n",
        &Output {
            base: String::new(),
            script: false,
            fallback_svg: None,
        },
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "info string, column 14: step takes an op number from 0 to 10000000, not 'x'"
    );
    assert!(
        h.contains("<pre><code>a = alloc 8&#10;b = alloc 8</code></pre>"),
        "{h}"
    );
    assert!(!h.contains("\n\n"));
}
