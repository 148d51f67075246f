"""The plain-text progress bar: counts, rate, ETA, errors; one line per update off a terminal."""

from __future__ import annotations

import io

from engine.batch.progress import Progress, format_duration


def test_progress_lines_without_a_terminal():
    stream = io.StringIO()
    p = Progress(4, done=1, stream=stream, interval_s=0.0)
    p.draw(force=True)
    p.start -= 60.0  # pretend the first new task took a minute
    p.update()
    p.update(error=True)
    p.close()
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("[######..................] 1/4 tasks  25.0%")
    assert "ETA --:--" in lines[0]
    assert "2/4 tasks" in lines[1] and "1.0/min" in lines[1] and "ETA 02:00" in lines[1]
    assert lines[2].endswith("1 errors") and "3/4 tasks" in lines[2]
    assert len(lines) == 3  # close() does not repeat an unchanged line
    assert "\r" not in stream.getvalue()


def test_durations():
    assert format_duration(59.6) == "01:00"
    assert format_duration(3 * 3600 + 62) == "3:01:02"
    assert format_duration(float("nan")) == "--:--"
