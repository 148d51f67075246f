"""Physical outcomes (labels) and per-grasp model predictions read from batch results.

Labels: a REACH-format JSON (records with obj, attempt, trial, result; grasp id '<obj>/<attempt>',
as `ipcgrasp batch` names REACH grasps) or a CSV with columns grasp_id and result (one row per
physical trial; result true/false/1/0) or grasp_id, successes, trials.

Predictions: per (model, config) and grasp, the predicted robustness. IPC and MuJoCo (the trial
models): the mean success of the grasp's trial rows with status 'ok' (a solver failure inside a trial is a failed trial, as in
run_trials). Analytic models: the row's robustness. A grasp whose rows are all errors is predicted
0, as the paper's script did for grasps without output, and reported.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from engine.analytic import registry
from engine.batch.grasp_spec import GraspTableError
from engine.batch.reach_records import load_reach_records
from engine.batch.tasks import STATUS_OK
from engine.errors import ParameterError
from engine.io.results_csv import cell_error, flag_cell

MAX_LABEL_BYTES = 64 * 1024**2
"""Largest labels file read."""
MAX_TRIALS = 1_000_000
"""Most physical trials the labels files of one evaluation may hold together (each is held in
memory: a 576-byte CSV of 40 rows declaring a million trials each took 4.6 GB)."""

_TRUE = {"1", "true", "yes", "y", "t", "success"}
_FALSE = {"0", "false", "no", "n", "f", "fail", "failure"}


@dataclass(frozen=True)
class PhysicalLabel:
    """Physical trial outcomes of one grasp (True = success), in trial order."""

    grasp_id: str
    outcomes: tuple[bool, ...]  # physical trials, in trial order

    @property
    def robustness(self) -> float:
        """Fraction of the physical trials that succeeded (0 with no trials)."""
        return sum(self.outcomes) / len(self.outcomes) if self.outcomes else 0.0


def _bool(value: object, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ParameterError(f"{where}: result {value!r} is not a boolean (true/false/1/0)")


def load_labels(paths: list[str]) -> dict[str, PhysicalLabel]:
    """Physical outcomes per grasp id from one or more label files."""
    outcomes = _Outcomes()
    seen: dict[str, str] = {}
    for path in paths:
        p = Path(path).expanduser()
        if not p.is_file():
            raise ParameterError(f"labels file {p} not found: give a REACH JSON or a CSV")
        if p.suffix.lower() == ".json":
            _reach_labels(p, outcomes, seen)
        else:
            _csv_labels(p, outcomes)
    if not outcomes.trials:
        raise ParameterError(f"no physical labels in {', '.join(paths)}")
    return {
        gid: PhysicalLabel(gid, tuple(r for _, r in sorted(trials, key=lambda x: x[0])))
        for gid, trials in outcomes.trials.items()
    }


class _Outcomes:
    """(trial, result) per grasp id, and how many trials in all, within MAX_TRIALS."""

    def __init__(self) -> None:
        self.trials: dict[str, list[tuple[int, bool]]] = defaultdict(list)
        self.count = 0

    def held(self, gid: str) -> int:
        """Trials of grasp `gid` so far."""
        return len(self.trials.get(gid, ()))

    def add(self, gid: str, results: list[tuple[int, bool]], where: str) -> None:
        """Add (trial, result) pairs of grasp `gid`, read at `where`."""
        self.reserve(len(results), where)
        self.trials[gid].extend(results)

    def reserve(self, n: int, where: str) -> None:
        """Count n more trials; ParameterError beyond MAX_TRIALS, before anything is held."""
        if self.count + n > MAX_TRIALS:
            raise ParameterError(
                f"{where}: the labels declare more than {MAX_TRIALS:,} physical trials in all "
                f"({self.count + n:,} so far); evaluate fewer or smaller label files at a time"
            )
        self.count += n


def _reach_labels(p: Path, out: _Outcomes, seen: dict[str, str]) -> None:
    """The records of a REACH JSON; `seen` maps each record read (as JSON text) to where it
    was, so a copied record (within a file or across files) is refused, not counted twice."""
    try:
        records = load_reach_records(p)
    except GraspTableError as exc:
        raise ParameterError(str(exc)) from exc
    for i, rec in enumerate(records):
        where = f"{p} record {i}"
        if not isinstance(rec, dict):
            raise ParameterError(f"{where}: not a JSON object")
        for name in ("obj", "attempt", "result"):
            if name not in rec:
                raise ParameterError(f"{where}: field {name!r} is missing")
        gid = f"{rec['obj']}/{rec['attempt']}"
        trial = rec.get("trial", out.held(gid))
        if isinstance(trial, bool) or not isinstance(trial, int):
            raise ParameterError(f"{where}: field 'trial' must be an integer (got {trial!r})")
        copy = json.dumps(rec, sort_keys=True, default=str)
        if copy in seen:
            raise ParameterError(
                f"{where} is a copy of {seen[copy]} (grasp {gid}, trial {trial}, every field "
                "the same): it would count as another physical trial; remove the copy"
            )
        seen[copy] = where
        out.add(gid, [(trial, _bool(rec["result"], where))], where)


def _csv_labels(p: Path, out: _Outcomes) -> None:
    try:
        if p.stat().st_size > MAX_LABEL_BYTES:
            raise ParameterError(
                f"labels {p} is over {MAX_LABEL_BYTES / 1024**2:.0f} MiB; split it into several files"
            )
        # utf-8-sig: spreadsheet programs start CSVs with a byte-order mark.
        text = p.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ParameterError(f"cannot read labels {p}: {exc}") from exc
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        fields = [f.strip().lower() for f in reader.fieldnames or []]
        if "grasp_id" not in fields or not (
            "result" in fields or {"successes", "trials"} <= set(fields)
        ):
            raise ParameterError(
                f"{p}: a labels CSV needs columns grasp_id and result (one row per physical "
                "trial) or grasp_id, successes and trials"
            )
        for row in reader:
            _label_row(p, reader.line_num, row, out)
    except csv.Error as exc:
        raise ParameterError(
            f"{p} line {reader.line_num + 1}: not a valid CSV row ({exc}); fix or remove it"
        ) from None


def _label_row(p: Path, line: int, raw: dict[str | None, object], out: _Outcomes) -> None:
    where = f"{p} line {line}"
    width = len(raw) - (None in raw)  # the header's columns (DictReader puts extras under None)
    extra = raw.get(None)
    cells = sum(v is not None for k, v in raw.items() if k is not None)
    cells += len(extra) if isinstance(extra, list) else 0
    if cells != width:
        # A cell too many or too few shifts or drops a value: refused, never guessed.
        raise ParameterError(
            f"{where}: {cells} fields, the header has {width}; give one value per column (a "
            "comma inside a grasp id needs quotes)"
        )
    row = {k.strip().lower(): str(v or "").strip() for k, v in raw.items() if isinstance(k, str)}
    gid = row["grasp_id"]
    if not gid:
        raise ParameterError(f"{where}: field 'grasp_id' is empty")
    if "result" in row and row["result"] != "":
        out.add(gid, [(out.held(gid), _bool(row["result"], where))], where)
        return
    try:
        k, n = _whole(row["successes"]), _whole(row["trials"])
    except (KeyError, ValueError):
        raise ParameterError(f"{where}: fields 'successes' and 'trials' must be integers") from None
    if not 0 <= k <= n or n == 0:
        raise ParameterError(f"{where}: need 0 <= successes <= trials and trials > 0")
    out.reserve(n, where)
    first = out.held(gid)
    out.trials[gid].extend((first + j, j < k) for j in range(n))


def _whole(text: str) -> int:
    """A count cell: digits 0-9 with an optional minus (ValueError otherwise: int() would also
    read '+3', '1_0' as 10 and digits of other scripts)."""
    digits = text.removeprefix("-")
    if not (digits.isascii() and digits.isdigit()):
        raise ValueError(text)
    return int(text)


@dataclass
class ModelPredictions:
    """One model under one setting: predicted robustness per grasp."""

    model: str
    config: str
    settings: dict[str, str] = field(default_factory=dict)  # parameters shown in labels
    robustness: dict[str, float] = field(default_factory=dict)
    task_time_s: dict[str, float] = field(default_factory=dict)  # model time per grasp
    failed_grasps: list[str] = field(default_factory=list)  # every row an error: predicted 0

    @property
    def name(self) -> str:
        """The model's name (the `model` field)."""
        return self.model


_SETTING_COLUMNS = {
    "param_youngs_modulus_pa": "E",
    "param_mu": "mu",
    "param_psi_th_j": "psi_th",
    "param_pad": "pad",
    "samples": "samples",
    "seed": "seed",
}


def _float(text: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def _robustness(row: dict[str, str]) -> float:
    """A model row's `robustness` cell: a number in [0, 1], or empty/NaN (the model gave none:
    the grasp counts as failed)."""
    text = row.get("robustness", "").strip()
    q = _float(text) if text else math.nan
    if (text and math.isnan(q) and text.lower() != "nan") or (
        not math.isnan(q) and not 0.0 <= q <= 1.0
    ):
        raise cell_error(row, "robustness", "a number in [0, 1] (or empty)")
    return q


def predictions_from_rows(rows: list[dict[str, str]]) -> list[ModelPredictions]:
    """Group result rows by (model, config) and reduce them to per-grasp robustness."""
    groups: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        groups[(row.get("model", ""), row.get("config", ""))].append(row)
    trial_models = registry.names(registry.trial_models())
    out = []
    for (model, config), members in groups.items():
        first = members[0]
        pred = ModelPredictions(
            model,
            config,
            {label: first.get(col, "") for col, label in _SETTING_COLUMNS.items()},
        )
        per_grasp: dict[str, list[dict[str, str]]] = defaultdict(list)
        for row in members:
            per_grasp[row.get("grasp_id", "")].append(row)
        for gid, grasp_rows in per_grasp.items():
            ok = [r for r in grasp_rows if r.get("status") == STATUS_OK]
            times = [_float(r.get("wall_time_s", "")) for r in grasp_rows]
            pred.task_time_s[gid] = float(sum(t for t in times if math.isfinite(t)))
            if not ok:
                pred.robustness[gid] = 0.0
                pred.failed_grasps.append(gid)
                continue
            if model in trial_models:
                wins = [flag_cell(r, "success") for r in ok]
                pred.robustness[gid] = sum(wins) / len(wins)
            else:
                q = _robustness(ok[-1])
                if not math.isfinite(q):
                    pred.robustness[gid] = 0.0
                    pred.failed_grasps.append(gid)
                else:
                    pred.robustness[gid] = q
        out.append(pred)
    # The registry's table order; models it does not know (another install's) come last.
    order = {m.name: m.order for m in registry.models()}
    out.sort(key=lambda p: (order.get(p.model, math.inf), p.model, _sort_settings(p.settings)))
    return out


def _sort_settings(settings: dict[str, str]) -> tuple:
    return tuple(_float(settings.get(k, "")) for k in ("E", "mu", "psi_th"))


def describe(predictions: list[ModelPredictions]) -> dict[int, str]:
    """Display name per entry: the model, plus the settings that differ among its entries."""
    names = {}
    by_model: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(predictions):
        by_model[p.model].append(i)
    for model, idx in by_model.items():
        if len(idx) == 1:
            names[idx[0]] = model
            continue
        keys = [
            k
            for k in predictions[idx[0]].settings
            if len({predictions[i].settings.get(k) for i in idx}) > 1
        ]
        for i in idx:
            s = predictions[i].settings
            detail = " ".join(f"{k}={s.get(k)}" for k in keys) or predictions[i].config
            names[i] = f"{model} {detail}"
    return names


def dump_json(obj: object) -> str:
    """obj as indented JSON; numpy scalars and other numbers are written as floats."""
    return json.dumps(obj, indent=2, sort_keys=False, default=float)
