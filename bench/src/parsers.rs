//! The JSON-parser evaluation of the informer's hot path (`bench parsers`, built with
//! `--features json-parsers`): serde_json, sonic-rs and simd-json (given fresh buffers for each
//! document, or its buffers kept from one to the next) decode the same list pages and watch
//! lines into `VirtualMachine`, alternately, and each result is checked against serde_json's;
//! then every body of the conformance corpus is parsed by each and compared.

use std::path::Path;
use std::time::Instant;

use generated_example::apis::cloudnative::v1alpha1::VirtualMachine;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::error::BenchError;
use crate::stats::Table;
use crate::vm_catalog::Catalog;

/// A list page as the informer reads it: the items are what costs.
#[derive(Deserialize, PartialEq, Debug)]
struct Page {
    items: Vec<VirtualMachine>,
}

/// A watch line.
#[derive(Deserialize, PartialEq, Debug)]
struct Event {
    #[serde(rename = "type")]
    kind: String,
    object: VirtualMachine,
}

#[derive(Clone, Copy)]
enum Parser {
    SerdeJson,
    SonicRs,
    SimdJson,
    SimdJsonKept,
}

const PARSERS: [(Parser, &str); 4] = [
    (Parser::SerdeJson, "serde_json (from_str)"),
    (Parser::SonicRs, "sonic-rs (from_slice)"),
    (Parser::SimdJson, "simd-json (copy + from_slice)"),
    (
        Parser::SimdJsonKept,
        "simd-json (buffers kept, as the informer's watch)",
    ),
];

/// What simd-json keeps from one document to the next when it is given its buffers, as the
/// informer's watch does: the padded copy of the text, the parser's buffers and its tape.
#[derive(Default)]
struct Kept {
    input: Vec<u8>,
    buffers: simd_json::Buffers,
    tape: Option<simd_json::Tape<'static>>,
}

impl Parser {
    /// Decodes `text` as a `T`. simd-json parses in place, so it decodes a copy: the informer's
    /// response bytes are shared and immutable. `kept` is what the last decode left.
    fn decode<T: DeserializeOwned>(self, text: &str, kept: &mut Kept) -> Result<T, BenchError> {
        let refused = |parser: &'static str| {
            move |source: Box<dyn std::error::Error + Send + Sync>| BenchError::Parser { parser, source }
        };
        match self {
            Parser::SerdeJson => serde_json::from_str(text).map_err(|e| refused("serde_json")(e.into())),
            Parser::SonicRs => sonic_rs::from_slice(text.as_bytes()).map_err(|e| refused("sonic-rs")(e.into())),
            Parser::SimdJson => {
                let mut copy = text.as_bytes().to_vec();
                simd_json::serde::from_slice(&mut copy).map_err(|e| refused("simd-json")(e.into()))
            }
            Parser::SimdJsonKept => {
                let Kept { input, buffers, tape } = kept;
                input.clear();
                input.extend_from_slice(text.as_bytes());
                input.resize(text.len() + simd_json::INPUT_PADDING, 0);
                let mut filled = tape.take().unwrap_or_else(simd_json::Tape::null).reset();
                let decoded = match simd_json::fill_tape_padded(input, text.len(), buffers, &mut filled) {
                    Ok(()) => {
                        let mut deserializer = simd_json::Deserializer::from_tape(filled);
                        let decoded = T::deserialize(&mut deserializer);
                        filled = deserializer.into_tape();
                        decoded
                    }
                    Err(error) => Err(error),
                };
                *tape = Some(filled.reset());
                decoded.map_err(|e| refused("simd-json")(e.into()))
            }
        }
    }
}

/// Pages of 500 objects and the matching watch lines, with or without managed fields.
struct Input {
    pages: Vec<String>,
    lines: Vec<String>,
    objects: usize,
}

impl Input {
    fn new(objects: usize, managed_fields: bool) -> Result<Self, BenchError> {
        let catalog = Catalog::new(objects, Some(objects), managed_fields);
        let text = |bytes: Vec<u8>| {
            String::from_utf8(bytes).map_err(|e| BenchError::check(format!("the catalog wrote invalid UTF-8: {e}")))
        };
        let pages = (0..objects)
            .step_by(500)
            .map(|offset| text(catalog.page(offset, 500)))
            .collect::<Result<_, _>>()?;
        let lines = (0..objects)
            .map(|j| {
                let mut line = Vec::new();
                catalog.write_event(&mut line, j);
                text(line)
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { pages, lines, objects })
    }

    /// Objects per second decoding every page with `parser`, then events per second decoding
    /// every line; fails if a result differs from serde_json's.
    fn measure(&self, parser: Parser, expected: &Expected) -> Result<(f64, f64), BenchError> {
        let started = Instant::now();
        let mut kept = Kept::default();
        let pages: Vec<Page> = self
            .pages
            .iter()
            .map(|p| parser.decode(p, &mut kept))
            .collect::<Result<_, _>>()?;
        let list = self.objects as f64 / started.elapsed().as_secs_f64();
        // Events are decoded and dropped, as the decode-only client of `bench informer` does;
        // a second, untimed pass checks them.
        let started = Instant::now();
        for line in &self.lines {
            std::hint::black_box(parser.decode::<Event>(line, &mut kept)?);
        }
        let watch = self.lines.len() as f64 / started.elapsed().as_secs_f64();
        // Compared after the timed parts: equality walks every field.
        if pages != expected.pages {
            return Err(BenchError::check("a page decodes differently"));
        }
        for (line, want) in self.lines.iter().zip(&expected.events) {
            if &parser.decode::<Event>(line, &mut kept)? != want {
                return Err(BenchError::check(format!(
                    "the watch line {line:.80}… decodes differently"
                )));
            }
        }
        Ok((list, watch))
    }
}

/// serde_json's results, the reference.
struct Expected {
    pages: Vec<Page>,
    events: Vec<Event>,
}

/// Runs the evaluation: per variant, `rounds` alternating rounds of the three parsers on
/// `objects` objects, then the corpus check.
pub fn suite(objects: usize, rounds: usize, corpus: &Path) -> Result<(), BenchError> {
    for managed_fields in [true, false] {
        let input = Input::new(objects, managed_fields)?;
        let expected = Expected {
            pages: input
                .pages
                .iter()
                .map(|p| Parser::SerdeJson.decode(p, &mut Kept::default()))
                .collect::<Result<_, _>>()?,
            events: input
                .lines
                .iter()
                .map(|l| Parser::SerdeJson.decode(l, &mut Kept::default()))
                .collect::<Result<_, _>>()?,
        };
        let mut table = Table::default();
        for _ in 0..rounds {
            for (parser, name) in PARSERS {
                let (list, watch) = input
                    .measure(parser, &expected)
                    .map_err(|e| BenchError::check(format!("{name}: {e}")))?;
                table.record(name, "list objects/s", list);
                table.record(name, "watch events/s", watch);
            }
        }
        let variant = if managed_fields { "with" } else { "without" };
        println!("\n### JSON parsers: {objects} VirtualMachines {variant} managedFields, {rounds} rounds\n");
        print!("{table}");
    }
    let bodies = corpus_bodies(corpus)?;
    for (parser, name) in PARSERS {
        let mut kept = Kept::default();
        for Body {
            where_,
            text,
            reference,
        } in &bodies
        {
            let parsed: serde_json::Value = parser
                .decode(text, &mut kept)
                .map_err(|e| BenchError::check(format!("{name} on {where_}: {e}")))?;
            if parsed != *reference {
                return Err(BenchError::check(format!(
                    "{name} parses {where_} differently: {parsed} instead of {reference}"
                )));
            }
        }
        let parsed: serde_json::Value = parser
            .decode(EDGE_CASES, &mut kept)
            .map_err(|e| BenchError::check(format!("{name} on edge cases: {e}")))?;
        let exact = edge_cases_value();
        let wrong: Vec<&String> = exact
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(key, value)| parsed.get(key.as_str()) != Some(*value))
            .map(|(key, _)| key)
            .collect();
        println!("{name}: edge cases read differently from their exact values: {wrong:?}");
    }
    println!(
        "Every parser gives serde_json's value for all {} bodies of the corpus.",
        bodies.len()
    );
    Ok(())
}

/// Strings and numbers parsers most often get wrong.
const EDGE_CASES: &str = r#"{"escapes":"\u00e9\ud83d\ude00\n\t\"\\\/","utf8":"日本語 ✓","big":18446744073709551615,"neg":-9223372036854775808,"float":1.5e-300,"exp":6.02E23,"empty":{},"nested":[[[]]]}"#;

/// What [`EDGE_CASES`] says, built without a parser (the float is rounded by rustc, exactly).
fn edge_cases_value() -> serde_json::Value {
    serde_json::json!({
        "escapes": "\u{e9}\u{1f600}\n\t\"\\/",
        "utf8": "日本語 ✓",
        "big": u64::MAX,
        "neg": i64::MIN,
        "float": 1.5e-300,
        "exp": 6.02e23,
        "empty": {},
        "nested": [[[]]],
    })
}

/// A body of the conformance corpus: where it is, its JSON text, and the value it holds.
struct Body {
    where_: String,
    text: String,
    reference: serde_json::Value,
}

/// Every request and response body of the conformance transcripts in `corpus`.
fn corpus_bodies(corpus: &Path) -> Result<Vec<Body>, BenchError> {
    let mut bodies = Vec::new();
    let entries = std::fs::read_dir(corpus).map_err(BenchError::file(corpus))?;
    let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "json")) {
        let text = std::fs::read_to_string(file).map_err(BenchError::file(file))?;
        let transcript: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| BenchError::file(file)(e.into()))?;
        let steps = transcript["steps"].as_array().into_iter().flatten();
        for (i, step) in steps.enumerate() {
            for part in ["request", "response"] {
                if let Some(body) = step[part].get("body").filter(|b| !b.is_null()) {
                    bodies.push(Body {
                        where_: format!("{} step {i} {part}", file.display()),
                        text: body.to_string(),
                        reference: body.clone(),
                    });
                }
            }
        }
    }
    Ok(bodies)
}
