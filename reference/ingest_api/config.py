"""The reference ingest server's configuration: limits, tokens and fault rates, validated once."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

#: Default largest accepted request body, in bytes (413 above it).
DEFAULT_MAX_BODY_BYTES = 1024 * 1024
#: Default ``Retry-After`` (seconds) sent with injected 503 answers.
DEFAULT_RETRY_AFTER = 1
#: Default delay (seconds) of an injected slow answer.
DEFAULT_SLOW_SECONDS = 2.0


class ConfigError(ValueError):
    """A server option that cannot work; the message names the option."""


@dataclass(frozen=True)
class Faults:
    """Probabilities (each 0..1, summing to at most 1) of the faults injected into ``POST /items``.

    ``error_500``: answer 500 before touching the database. ``unavailable_503``: answer 503 with
    ``Retry-After: retry_after`` before touching the database. ``slow``: wait ``slow_seconds``,
    then process the request normally (a client that timed out meanwhile retries while the slow
    request still commits). ``drop``: commit the upsert, then drop the connection without any
    answer, the case that proves retries are safe.
    """

    error_500: float = 0.0
    unavailable_503: float = 0.0
    slow: float = 0.0
    drop: float = 0.0
    retry_after: int = DEFAULT_RETRY_AFTER
    slow_seconds: float = DEFAULT_SLOW_SECONDS
    seed: int | None = None

    def __post_init__(self) -> None:
        for name in ("error_500", "unavailable_503", "slow", "drop"):
            rate = getattr(self, name)
            if not 0.0 <= rate <= 1.0:
                raise ConfigError(f"fault rate {name}={rate!r} must be between 0 and 1")
        if self.total > 1.0 + 1e-9:
            raise ConfigError(f"fault rates add up to {self.total:.3f}; they must total at most 1")
        if self.retry_after < 0:
            raise ConfigError(f"retry_after={self.retry_after!r} must be >= 0 seconds")
        if self.slow_seconds < 0:
            raise ConfigError(f"slow_seconds={self.slow_seconds!r} must be >= 0")

    @property
    def total(self) -> float:
        return self.error_500 + self.unavailable_503 + self.slow + self.drop

    @classmethod
    def mixed(cls, rate: float, **overrides: float | None) -> Faults:
        """Every fault kind at ``rate / 4`` (``--faults RATE``), then per-kind ``overrides``."""
        if not 0.0 <= rate <= 1.0:
            raise ConfigError(f"--faults {rate!r} must be between 0 and 1")
        base = cls(error_500=rate / 4, unavailable_503=rate / 4, slow=rate / 4, drop=rate / 4)
        given = {k: v for k, v in overrides.items() if v is not None}
        return dataclasses.replace(base, **given)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ServerConfig:
    """Everything ``create_app`` needs. Tokens are kept out of ``repr``."""

    db_path: Path
    tokens: tuple[str, ...] = field(repr=False)
    read_tokens: tuple[str, ...] = field(default=(), repr=False)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    faults: Faults = field(default_factory=Faults)
    #: Tests of late writes: the first ``hold_first`` valid POSTs wait, before they are
    #: applied, until the file ``hold_release`` exists (the client may be gone by then).
    hold_first: int = 0
    hold_release: Path | None = None
    #: Validate every document against ``<schema_dir>/case-document.v<N>.schema.json``
    #: (docs/schema.md); ``None``: the structural checks of validation.py only.
    schema_dir: Path | None = None

    def __post_init__(self) -> None:
        if self.hold_first < 0 or (self.hold_first and self.hold_release is None):
            raise ConfigError("--hold-first N needs N >= 0 and --hold-release PATH")
        if not self.tokens or any(not t for t in self.tokens):
            raise ConfigError("at least one non-empty --token is required")
        if any(not t for t in self.read_tokens):
            raise ConfigError("--read-token must not be empty")
        if self.max_body_bytes < 1:
            raise ConfigError(f"--max-body {self.max_body_bytes!r} must be a positive byte count")
