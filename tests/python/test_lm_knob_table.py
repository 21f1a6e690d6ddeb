"""tools/lm_knob_table.py: the cells of one variant's row from its runs' summaries (docs/sinks-in-language-models.md),
on hand-made summaries whose numbers are known: the mean and t-interval, the pooled sink heads, the model's own
sink (key-bias slot or sink logit), and unfinished runs named, never averaged."""
import math
import sys

from conftest import SOURCE_DIR

sys.path.insert(0, str(SOURCE_DIR / "tools"))
import lm_knob_table  # noqa: E402


class FakeRun:
    def __init__(self, summary=None, state="finished"):
        self.summary = summary
        self.finished = summary is not None
        self.state = state


def summary(seed, loss, alphas, no_bos, slots=None, normalizer="softmax", masses=None, massive=10.0):
    def heads(values, slot_values=None):
        return [{"alpha": [a, 0.0], "alpha_slot": None if slot_values is None else slot_values[i]}
                for i, a in enumerate(values)]
    return {
        "seed": seed, "eval_loss": loss, "normalizer": normalizer, "massive_ratio_max": massive,
        "heads": [{"mass_mean": m} for m in (masses or [1.0] * len(alphas))],
        "extreme_tokens": {"gu_bos": {"heads": heads(alphas, slots)}, "gu_no_bos": {"heads": heads(no_bos)}},
    }


def test_mean_and_interval_over_seeds():
    # Two values 1 and 3: mean 2, s = sqrt(2), half-width t_{0.975,1} * s / sqrt(2) = 12.71.
    assert lm_knob_table.mean_interval([1.0, 3.0]) == "2.000 ± 12.710"
    assert lm_knob_table.mean_interval([0.25]) == "0.250 (one seed)"
    assert lm_knob_table.mean_interval([None, None]) == "-"
    three = [0.1, 0.2, 0.6]
    m = sum(three) / 3
    half = 4.303 * math.sqrt(sum((v - m) ** 2 for v in three) / 2) / math.sqrt(3)
    assert lm_knob_table.mean_interval(three) == f"{m:.3f} ± {half:.3f}"


def test_a_row_pools_sink_heads_and_takes_the_strongest_head_per_seed():
    entries = [({"seed": 0}, FakeRun(summary(0, 3.7, [0.31, 0.2, 0.5, 0.1], [0.07, 0.08, 0.06, 0.05]))),
               ({"seed": 1}, FakeRun(summary(1, 3.9, [0.29, 0.3, 0.1, 0.1], [0.09, 0.07, 0.06, 0.05]))),
               ({"seed": 2}, FakeRun(None, state="unfinished"))]
    seeds, loss, bos, sinks, no_bos, own, massive, pending = lm_knob_table.row_of(entries, 0.3)
    assert seeds == "0,1"
    assert loss.startswith("3.800 ± ")
    assert bos == lm_knob_table.mean_interval([0.5, 0.3])
    assert sinks == "3 of 8 (38 %)"  # 0.31, 0.5 and exactly 0.3 count; 0.29 does not
    assert no_bos == lm_knob_table.mean_interval([0.08, 0.09])
    assert own == "-"
    assert massive.startswith("10.0 ± 0.0")
    assert pending == "seed 2: unfinished"


def test_the_own_sink_is_the_key_bias_slot_or_the_sink_logit():
    slot = summary(0, 3.7, [0.1, 0.2], [0.07, 0.07], slots=[0.6, 0.2])
    assert lm_knob_table.own_sink(slot) == (0.6, "slot")
    logit = summary(0, 3.7, [0.1, 0.2], [0.07, 0.07], normalizer="sink_logit", masses=[0.9, 0.55])
    share, kind = lm_knob_table.own_sink(logit)
    assert kind == "logit" and math.isclose(share, 0.45)
    assert lm_knob_table.own_sink(summary(0, 3.7, [0.1], [0.07])) == (None, None)
    row = lm_knob_table.row_of([({"seed": 0}, FakeRun(slot)), ({"seed": 1}, FakeRun(slot))], 0.3)
    assert row[5] == "slot 0.60 ± 0.00"
