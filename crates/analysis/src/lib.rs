//! The Analyst seam, the EPD analysis verbs (pfga, pfms, pfts), suite scoring and PGN annotation (work in progress).
