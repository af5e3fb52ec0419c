"""The pure-Python twin of `recall._core`, one module per Rust file; `recall._accel` picks."""
