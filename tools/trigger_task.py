"""The trigger-conditional task of the sink-necessity paper, batched on torch (docs/tasks.md; the paper arXiv 2603.11487 s.2).

Per sequence, positions 0..L-1: position 0 is BOS (coordinate 0 = 1); one trigger at j (coordinate 1 = 1,
plus content); every other position is ordinary (content, coordinate d-1 = 1). Content coordinates
2..d-2 are i.i.d. U(-1, 1). Targets use m_j = (1/j) * sum_{k=1..j} x_k (BOS excluded):
  "mean":     y_j = m_j, every other row 0 (the single-layer, no-residual runs);
  "residual": y_i = x_i, plus m_j at the trigger (the multi-layer runs, which return the stream).
"""
import torch

TARGETS = ("mean", "residual")


class TriggerTask:
    def __init__(self, seq_len=16, dim=16, target="mean"):
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r}; expected one of {TARGETS}")
        if seq_len < 3 or dim < 4:
            raise ValueError(f"the task needs seq_len >= 3 and dim >= 4 (got {seq_len}, {dim})")
        self.seq_len, self.dim, self.target = seq_len, dim, target
        self._positions = torch.arange(seq_len)

    def sample(self, batch, generator, trigger=None):
        """Returns (x, y, j): x, y float32 [batch, seq_len, dim]; j int64 [batch].

        trigger=None draws j ~ U{2..L-1} per sequence (training); an int fixes it (evaluation uses 7).
        """
        L, d = self.seq_len, self.dim
        if trigger is None:
            j = torch.randint(2, L, (batch,), generator=generator)
        else:
            if not 1 <= trigger < L:
                raise ValueError(f"trigger position {trigger} outside 1..{L - 1}")
            j = torch.full((batch,), trigger, dtype=torch.int64)
        x = torch.zeros(batch, L, d)
        x[:, 1:, 2:d - 1] = torch.rand(batch, L - 1, d - 3, generator=generator) * 2 - 1
        pos = self._positions.unsqueeze(0)  # [1, L]
        is_trigger = pos == j.unsqueeze(1)  # [B, L]
        x[:, 0, 0] = 1.0
        x[:, :, 1] = is_trigger.float()
        x[:, :, d - 1] = ((pos >= 1) & ~is_trigger).float()

        # m_j: the mean of rows 1..j, as one masked reduction rather than a per-sample loop.
        upto = ((pos >= 1) & (pos <= j.unsqueeze(1))).float()  # [B, L]
        mean = torch.einsum("bl,bld->bd", upto, x) / j.unsqueeze(1).float()
        y = x.clone() if self.target == "residual" else torch.zeros_like(x)
        y[torch.arange(batch), j] += mean
        return x, y, j
