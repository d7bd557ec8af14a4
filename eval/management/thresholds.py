"""What eval_conversations and eval_locomo share about recall's confidence threshold: the
``--threshold`` and ``--curve`` options, and the curve's table."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from django.core.management.base import CommandParser, OutputWrapper


def threshold(text: str) -> float:
    """``--threshold``'s type: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from exc
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def add_threshold_arguments(parser: CommandParser) -> None:
    parser.add_argument(
        "--threshold",
        type=threshold,
        default=None,
        help="recall's confidence threshold, 0..1 (default: UME_RECALL_MIN_CONFIDENCE)",
    )
    parser.add_argument(
        "--curve",
        action="store_true",
        help="also print quiet and hit@5 at several thresholds (the trade-off curve)",
    )


def write_curve(
    out: OutputWrapper, rows: Sequence[dict[str, Any]], systems: Sequence[str], quiet_of: str
) -> None:
    """The curve as a table: per threshold, each system's quiet rate and hit@5."""
    out.write(f"trade-off over the threshold ({quiet_of}; hit@5 over answerable questions)")
    out.write(f"{'threshold':>9}  " + "  ".join(f"{s:>22}" for s in systems))
    out.write(f"{'':>9}  " + "  ".join(f"{'quiet  hit@5':>22}" for _ in systems))
    for row in rows:
        cells = [f"{row[s]['quiet']:>15.3f} {row[s]['hit_at_5']:>6.3f}" for s in systems]
        out.write(f"{row['threshold']:>9.2f}  " + "  ".join(cells))
