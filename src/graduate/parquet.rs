//! verl's RL dataset as Parquet, written column by column.
//!
//! The schema is verl's (its `RLHFDataset` reads `prompt` as chat messages
//! and hands `reward_model.ground_truth`, `data_source` and `extra_info` to
//! the reward function):
//!
//! ```text
//! message schema {
//!   required binary data_source (STRING);
//!   required group prompt (LIST) { repeated group list { required group element {
//!       required binary role (STRING); required binary content (STRING); } } }
//!   required binary ability (STRING);
//!   required group reward_model { required binary style (STRING); required binary ground_truth (STRING); }
//!   required group extra_info { required binary split (STRING); required int64 index; required binary question (STRING); }
//! }
//! ```
//!
//! Every field is required and every prompt has at least one message, so
//! the only levels to write are the prompt's: definition level 1 for each
//! message, repetition level 0 for a row's first message and 1 for the rest.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use parquet::data_type::{ByteArray, ByteArrayType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;

pub const SCHEMA: &str = "message schema {
  required binary data_source (STRING);
  required group prompt (LIST) {
    repeated group list {
      required group element {
        required binary role (STRING);
        required binary content (STRING);
      }
    }
  }
  required binary ability (STRING);
  required group reward_model {
    required binary style (STRING);
    required binary ground_truth (STRING);
  }
  required group extra_info {
    required binary split (STRING);
    required int64 index;
    required binary question (STRING);
  }
}";

/// One row of a verl RL dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub data_source: String,
    /// (role, content) chat messages; at least one.
    pub prompt: Vec<(String, String)>,
    pub ability: String,
    pub style: String,
    pub ground_truth: String,
    pub split: String,
    pub index: i64,
    pub question: String,
}

fn bytes<'a>(it: impl Iterator<Item = &'a str>) -> Vec<ByteArray> {
    it.map(|s| ByteArray::from(s.as_bytes().to_vec())).collect()
}

/// Write `rows` to `path` (one row group, uncompressed).
pub fn write(path: &Path, rows: &[Row]) -> Result<()> {
    anyhow::ensure!(rows.iter().all(|r| !r.prompt.is_empty()), "a verl prompt needs at least one message");
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p)?;
    }
    let schema = Arc::new(parse_message_type(SCHEMA)?);
    let props = Arc::new(WriterProperties::builder().build());
    let file = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut writer = SerializedFileWriter::new(file, schema, props)?;
    let mut rg = writer.next_row_group()?;
    let rep: Vec<i16> = rows.iter().flat_map(|r| (0..r.prompt.len()).map(|i| i16::from(i > 0))).collect();
    let def = vec![1i16; rep.len()];
    let mut column = 0;
    while let Some(mut col) = rg.next_column()? {
        match column {
            // data_source, prompt.role, prompt.content, ability, style, ground_truth, split, index, question
            0 => {
                col.typed::<ByteArrayType>().write_batch(
                    &bytes(rows.iter().map(|r| r.data_source.as_str())),
                    None,
                    None,
                )?;
            }
            1 | 2 => {
                let v = bytes(rows.iter().flat_map(|r| {
                    r.prompt
                        .iter()
                        .map(move |(role, content)| if column == 1 { role.as_str() } else { content.as_str() })
                }));
                col.typed::<ByteArrayType>().write_batch(&v, Some(&def), Some(&rep))?;
            }
            3 => {
                col.typed::<ByteArrayType>().write_batch(
                    &bytes(rows.iter().map(|r| r.ability.as_str())),
                    None,
                    None,
                )?;
            }
            4 => {
                col.typed::<ByteArrayType>().write_batch(&bytes(rows.iter().map(|r| r.style.as_str())), None, None)?;
            }
            5 => {
                col.typed::<ByteArrayType>().write_batch(
                    &bytes(rows.iter().map(|r| r.ground_truth.as_str())),
                    None,
                    None,
                )?;
            }
            6 => {
                col.typed::<ByteArrayType>().write_batch(&bytes(rows.iter().map(|r| r.split.as_str())), None, None)?;
            }
            7 => {
                let v: Vec<i64> = rows.iter().map(|r| r.index).collect();
                col.typed::<Int64Type>().write_batch(&v, None, None)?;
            }
            8 => {
                col.typed::<ByteArrayType>().write_batch(
                    &bytes(rows.iter().map(|r| r.question.as_str())),
                    None,
                    None,
                )?;
            }
            n => anyhow::bail!("unexpected column {n} in the verl schema"),
        }
        col.close()?;
        column += 1;
    }
    rg.close()?;
    writer.close()?;
    Ok(())
}

/// Every row of a Parquet file as JSON (for tests and checks).
pub fn read_json(path: &Path) -> Result<Vec<serde_json::Value>> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(std::fs::File::open(path)?)?;
    let iter = reader.get_row_iter(None)?;
    iter.map(|r| Ok(r?.to_json_value())).collect()
}

/// The file's schema, as Parquet's message text.
pub fn schema_text(path: &Path) -> Result<String> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let reader = SerializedFileReader::new(std::fs::File::open(path)?)?;
    let mut out = Vec::new();
    parquet::schema::printer::print_schema(&mut out, reader.metadata().file_metadata().schema());
    Ok(String::from_utf8_lossy(&out).into_owned())
}
