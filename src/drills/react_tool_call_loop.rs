//! `react-tool-call-loop` (being implemented).

use anyhow::Result;

use super::{Drill, RunCtx};

pub struct ReactToolCallLoop;

impl Drill for ReactToolCallLoop {
    fn id(&self) -> &'static str {
        "react-tool-call-loop"
    }

    fn run(&self, _ctx: &mut RunCtx) -> Result<()> {
        anyhow::bail!("not implemented yet")
    }
}
