//! Widgets shared by several screens.

pub mod bar;
pub mod chart;
pub mod claims;
pub mod question;
pub mod token_mask;
