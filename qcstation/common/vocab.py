"""The words of the benchmark, spelled once: dimensions, key-information fields, statuses and
verdicts.

Every stage imports its vocabulary from here (construction, review, release, evaluation,
the exports and the screens). The statuses are the values the database stores
(``db/migrations.py`` spells them in its SQL, which is frozen history). Imports nothing.
"""

from __future__ import annotations

__all__ = [
    "DIMENSIONS", "QC_DIMENSIONS", "KEYINFO_FIELDS", "KEYINFO_TITLES", "ARTIFACT_STATUSES",
    "USABLE_STATUSES", "SEED_STATUSES", "SAMPLE_STATUSES", "VERDICTS", "FINAL_VERDICTS",
]

#: The four SMART dimensions, in the order every report lists them.
DIMENSIONS: tuple[str, ...] = ("understanding", "reasoning", "arithmetic", "refinement")

#: The dimensions whose artifacts people review in samples: notation questions (arithmetic)
#: and key information (understanding).
QC_DIMENSIONS: tuple[str, ...] = ("arithmetic", "understanding")

#: The six key-information fields of an Understanding artifact, in the paper's order, and
#: the titles they are written under (prompts, the review screen, the release's
#: ``background`` text).
KEYINFO_FIELDS: tuple[str, ...] = (
    "problem_scenario",
    "goal",
    "known_quantities",
    "unknown_quantities",
    "relationships_and_constraints",
    "irrelevant_information",
)
KEYINFO_TITLES: dict[str, str] = {
    "problem_scenario": "Problem Scenario",
    "goal": "Goal",
    "known_quantities": "Known Quantities",
    "unknown_quantities": "Unknown Quantities",
    "relationships_and_constraints": "Relationships and Constraints",
    "irrelevant_information": "Irrelevant Information",
}

#: An artifact version's status: made, checked (verified or failed), reviewed (accepted or
#: rejected), or replaced by a newer version (superseded).
ARTIFACT_STATUSES: tuple[str, ...] = (
    "generated", "verified", "failed", "accepted", "rejected", "superseded")
#: The statuses of an artifact that may be used: sampled from, released, not regenerated.
USABLE_STATUSES: tuple[str, ...] = ("verified", "accepted")

#: A seed's status: in the data set, left out by a filter or as a duplicate on import, or
#: excluded by a curator in QC.
SEED_STATUSES: tuple[str, ...] = ("active", "filtered", "duplicate", "excluded")

#: A QC sample's status: open for review, or closed (a failed round, superseded, passed).
SAMPLE_STATUSES: tuple[str, ...] = ("open", "failed", "superseded", "passed")

#: What a reviewer decides about a sampled item; accept and reject are final, a skip is not.
VERDICTS: tuple[str, ...] = ("accept", "reject", "skip")
FINAL_VERDICTS: tuple[str, ...] = ("accept", "reject")
