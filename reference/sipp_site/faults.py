"""Fault injection: which responses fail, how, and whether the app ran first.

Every kind has its own rate; ``--faults RATE`` splits RATE evenly over all kinds. Faults never
change data: they pick *how* a response fails, drawn from their own random stream.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

#: Every fault kind, in the order rates are drawn.
KINDS = (
    "500",  # Apache "500 Internal Server Error" (the app ran: a one-shot value is consumed)
    "502",  # nginx "502 Bad Gateway" (before the app)
    "503",  # nginx "503 Service Temporarily Unavailable" (before the app)
    "slow",  # a correct response after a delay of slow_seconds
    "hang",  # no response at all; the connection is closed after hang_seconds
    "reset",  # the connection is reset (RST) before any byte of the response
    "truncate",  # headers promise the full body, the connection closes half-way (app ran)
    "db_error",  # 200 with CodeIgniter "A Database Error Occurred" (app ran)
    "ci_error",  # 200 with CodeIgniter "An Error Was Encountered" (app ran)
    "php_error",  # 200 with a "A PHP Error was encountered" notice before a valid page (app ran)
)
#: What the replica prints once SIGUSR1 has switched every fault off.
FAULTS_OFF_LINE = "faults off"
#: Kinds after which the app has run (a one-shot session value has been consumed).
APP_RAN = frozenset({"500", "truncate", "db_error", "ci_error", "php_error", "slow"})


class FaultConfigError(ValueError):
    """Fault rates that do not make sense (negative, or summing to more than 1)."""


@dataclass(frozen=True)
class FaultConfig:
    """Per-kind fault rates (0..1 each, summing to at most 1) and timing."""

    rates: dict[str, float] = field(default_factory=dict)
    slow_seconds: float = 3.0
    hang_seconds: float = 120.0

    def __post_init__(self) -> None:
        for kind, rate in self.rates.items():
            if kind not in KINDS:
                raise FaultConfigError(f"unknown fault kind {kind!r}; known: {', '.join(KINDS)}")
            if not 0.0 <= rate <= 1.0:
                raise FaultConfigError(f"fault rate for {kind} is {rate}: give 0 .. 1")
        if sum(self.rates.values()) > 1.0 + 1e-9:
            raise FaultConfigError(
                f"fault rates sum to {sum(self.rates.values()):.3f} > 1: lower --faults or the "
                "per-kind --fault-<kind> options"
            )
        if self.slow_seconds < 0 or self.hang_seconds < 0:
            raise FaultConfigError("--slow-seconds and --hang-seconds must be >= 0")

    @classmethod
    def mixed(
        cls,
        total: float,
        overrides: dict[str, float] | None = None,
        *,
        slow_seconds: float = 3.0,
        hang_seconds: float = 120.0,
    ) -> FaultConfig:
        """``total`` split evenly over every kind, then per-kind ``overrides`` applied."""
        if not 0.0 <= total <= 1.0:
            raise FaultConfigError(f"--faults {total}: give a rate 0 .. 1 (e.g. 0.05)")
        rates = {kind: total / len(KINDS) for kind in KINDS} if total else {}
        for kind, rate in (overrides or {}).items():
            rates[kind] = rate
        rates = {k: v for k, v in rates.items() if v > 0}
        return cls(rates=rates, slow_seconds=slow_seconds, hang_seconds=hang_seconds)

    @property
    def total(self) -> float:
        return sum(self.rates.values())


class FaultPicker:
    """Draws the fault (or ``None``) for each response from its own random stream."""

    def __init__(self, config: FaultConfig, seed: int | None = None) -> None:
        self.config = config
        self._rng = random.Random(seed)
        self._table = [(k, config.rates[k]) for k in KINDS if config.rates.get(k, 0) > 0]

    def pick(self) -> str | None:
        if not self._table:
            return None
        u = self._rng.random()
        for kind, rate in self._table:
            if u < rate:
                return kind
            u -= rate
        return None
