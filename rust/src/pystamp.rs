//! Epoch numbers as ISO strings exactly as CPython's `datetime.fromtimestamp(t, UTC)` writes them.
//!
//! Gemini records (and Pi's messages) may carry epoch seconds or
//! milliseconds; the twin formats them with `datetime`, so microseconds are
//! rounded half-to-even and years outside 1..=9999 (or times past `time_t`)
//! give no timestamp.

use crate::lazyjson::Val;
use crate::pytext::nonblank;

/// The twin's `stamp` (`recall/_twin/gemini.py`): an ISO string as given (trimmed),
/// or epoch seconds/milliseconds formatted; None for anything else.
pub fn stamp(v: Val<'_>) -> Option<String> {
    match v {
        Val::Num(t) => number_stamp(t),
        Val::Str(_) => v.as_str().and_then(|s| nonblank(&s)),
        _ => None,
    }
}

/// `stamp` for a JSON number's text.
pub fn number_stamp(text: &str) -> Option<String> {
    let is_float = text.bytes().any(|b| matches!(b, b'.' | b'e' | b'E'));
    if !is_float {
        // Too long for i128: far outside the datetime range either way.
        let v: i128 = text.parse().ok()?;
        if v > 100_000_000_000 {
            return float_stamp(v as f64 / 1000.0);
        }
        let t = i64::try_from(v).ok()?;
        return format(t, 0);
    }
    let f: f64 = text.parse().ok()?;
    float_stamp(if f > 1e11 { f / 1000.0 } else { f })
}

fn float_stamp(d: f64) -> Option<String> {
    if d.is_nan() {
        return None;
    }
    let mut intpart = d.trunc();
    let mut frac = ((d - intpart) * 1e6).round_ties_even();
    if frac >= 1e6 {
        frac -= 1e6;
        intpart += 1.0;
    } else if frac < 0.0 {
        frac += 1e6;
        intpart -= 1.0;
    }
    // time_t range, as `_Py_InIntegralTypeRange(time_t, intpart)` checks.
    if !(intpart >= i64::MIN as f64 && intpart < i64::MAX as f64) {
        return None;
    }
    format(intpart as i64, frac as u32)
}

fn format(t: i64, us: u32) -> Option<String> {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    if !(1..=9999).contains(&y) {
        return None;
    }
    let (hh, mm, ss) = (secs / 3600, secs % 3600 / 60, secs % 60);
    let frac = if us > 0 {
        format!(".{us:06}")
    } else {
        String::new()
    };
    Some(format!(
        "{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}{frac}Z"
    ))
}

/// Howard Hinnant's days-to-civil for the proleptic Gregorian calendar.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_and_milliseconds() {
        assert_eq!(number_stamp("0").as_deref(), Some("1970-01-01T00:00:00Z"));
        assert_eq!(
            number_stamp("1741518000123").as_deref(),
            Some("2025-03-09T11:00:00.123000Z")
        );
        assert_eq!(
            number_stamp("1.5").as_deref(),
            Some("1970-01-01T00:00:01.500000Z")
        );
        assert_eq!(
            number_stamp("-1.25").as_deref(),
            Some("1969-12-31T23:59:58.750000Z")
        );
    }

    #[test]
    fn out_of_range_gives_none() {
        assert_eq!(number_stamp("1e999"), None);
        assert_eq!(number_stamp("-99999999999"), None);
        assert_eq!(number_stamp("1".repeat(60).as_str()), None);
        assert_eq!(
            number_stamp("99999999999").as_deref(),
            Some("5138-11-16T09:46:39Z")
        );
    }
}
