"""Camera intrinsics, table set-up, colour and tile enrolment."""
