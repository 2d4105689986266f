//! Conversions (filled in below).
