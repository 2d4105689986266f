//! The EPD Kit: records, opcodes with typed operands, validation and the pfdn/pfop verbs (work in progress).
