//! Trust round three: regression tests (filled in by the work on issue 29/30).
