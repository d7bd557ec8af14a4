"""The gate as plain tables: proposals + snapshot in, plan out. No database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memory.gate import (
    CandidateRef,
    NodeRef,
    RulesRef,
    Snapshot,
    SuppressionRef,
    WritePlan,
    plan_writes,
)
from memory.keys import canonical_key
from memory.proposals import (
    AnyProposal,
    CandidateProposal,
    EdgeProposal,
    EventProposal,
    EvidenceSpan,
    NodeProposal,
    SliceProposal,
)
from memory.tombstones import Tombstone, sign, tombstone

NOW = datetime(2026, 5, 10, 12, 0, tzinfo=UTC)
EV = (EvidenceSpan(message_id="M0", quote="the user said so"),)
AUTO = RulesRef(capture_default="auto")


def ref(
    node_id: int, label: str, category: str = "project", aliases: tuple[str, ...] = ()
) -> NodeRef:
    return NodeRef(
        node_id,
        label,
        canonical_key(label),
        category,
        "active",
        frozenset(canonical_key(a) for a in aliases),
    )


def snap(**kw: object) -> Snapshot:
    return Snapshot.empty(now=NOW, **kw)


def node(label: str, confidence: float = 0.9, **kw: object) -> NodeProposal:
    return NodeProposal(label=label, confidence=confidence, evidence=EV, **kw)  # type: ignore[arg-type]


def event(
    on: str, action: str = "started", text: str = "started it", **kw: object
) -> EventProposal:
    return EventProposal(on=on, action=action, text=text, evidence=EV, **kw)  # type: ignore[arg-type]


def slice_(
    on: str, text: str = "a durable detail", kind: str = "other", **kw: object
) -> SliceProposal:
    return SliceProposal(on=on, text=text, kind=kind, evidence=EV, **kw)  # type: ignore[arg-type]


def edge(src: str, dst: str, type: str = "uses", **kw: object) -> EdgeProposal:
    return EdgeProposal.model_validate({"from": src, "to": dst, "type": type, "evidence": EV, **kw})


def reasons(plan: WritePlan) -> list[tuple[str, str, str]]:
    return [(r.kind, r.label, r.reason) for r in plan.rejected]


# --- every rejection reason -------------------------------------------------------------------

BOXING = ref(1, "Boxing", "skill")
ATLAS = ref(2, "Atlas", "project")


def _forgotten_dan() -> Tombstone:
    signed = sign("Dan", category="relationship")
    return tombstone(id=99, label="Dan", key="dan", **signed)


REJECTIONS = [
    ("junk pronoun", [node("they")], snap(), ("node", "they", "junk_label")),
    ("junk filler", [node("ok ok")], snap(), ("node", "ok ok", "junk_label")),
    ("junk single char", [node("x")], snap(), ("node", "x", "junk_label")),
    (
        "bad title question",
        [node("Should we use queues?")],
        snap(),
        ("node", "Should we use queues?", "bad_title"),
    ),
    (
        "bad title request",
        [node("Save this conversation")],
        snap(),
        ("node", "Save this conversation", "bad_title"),
    ),
    (
        "bad title too long",
        [node("one two three four five six seven eight nine ten eleven twelve thirteen")],
        snap(),
        (
            "node",
            "one two three four five six seven eight nine ten eleven twelve thirteen",
            "bad_title",
        ),
    ),
    ("bad label gerund", [node("Going")], snap(), ("node", "Going", "bad_label")),
    ("bad label cut at markup", [node("<b>R")], snap(), ("node", "<b>R", "bad_label")),
    (
        "bad label event subject",
        [event("Few Days", "It rained for a few days")],
        snap(),
        ("event", "Few Days", "bad_label"),
    ),
    (
        "excluded by rule",
        [node("Poker Night")],
        snap(rules=RulesRef(excludes=("poker",))),
        ("node", "Poker Night", "excluded_by_rule"),
    ),
    (
        "outside include rules",
        [node("Poker Night")],
        snap(rules=RulesRef(includes=("health",))),
        ("node", "Poker Night", "outside_include_rules"),
    ),
    (
        "suppressed node",
        [node("Piano")],
        snap(suppressions=(SuppressionRef(7, "node", "piano"),)),
        ("node", "Piano", "suppressed_blocked"),
    ),
    (
        "suppressed candidate proposal",
        [CandidateProposal(label="Piano", confidence=0.6, evidence=EV)],
        snap(suppressions=(SuppressionRef(7, "candidate", "piano"),)),
        ("candidate", "Piano", "suppressed_blocked"),
    ),
    (
        "low confidence node",
        [node("Tennis", confidence=0.4)],
        snap(),
        ("node", "Tennis", "low_confidence"),
    ),
    (
        "low confidence candidate",
        [CandidateProposal(label="Tennis", confidence=0.1, evidence=EV)],
        snap(),
        ("candidate", "Tennis", "low_confidence"),
    ),
    (
        "low confidence event",
        [event("Boxing", confidence=0.2)],
        snap(nodes=(BOXING,)),
        ("event", "Boxing", "low_confidence"),
    ),
    ("event without node", [event("")], snap(), ("event", "", "event_no_node")),
    ("event on a pronoun", [event("it")], snap(), ("event", "it", "event_no_node")),
    ("slice without node", [slice_("")], snap(), ("slice", "", "slice_no_node")),
    (
        "empty slice text",
        [slice_("Boxing", text="   ")],
        snap(nodes=(BOXING,)),
        ("slice", "Boxing", "empty_text"),
    ),
    (
        "edge endpoint missing",
        [edge("Atlas", "Postgres")],
        snap(nodes=(ATLAS,)),
        ("edge", "Atlas -> Postgres", "edge_endpoint_missing"),
    ),
    (
        "edge self loop via alias",
        [edge("Atlas", "Atlas Project")],
        snap(nodes=(ref(2, "Atlas", aliases=("Atlas Project",)),)),
        ("edge", "Atlas -> Atlas Project", "edge_self_loop"),
    ),
    (
        "invalid edge type",
        [edge("Atlas", "Boxing", type="loves")],
        snap(nodes=(ATLAS, BOXING)),
        ("edge", "Atlas -> Boxing", "invalid_edge_type"),
    ),
    (
        "duplicate stored edge",
        [edge("Atlas", "Boxing")],
        snap(nodes=(ATLAS, BOXING), edges=frozenset({(2, 1, "uses", "")})),
        ("edge", "Atlas -> Boxing", "duplicate"),
    ),
    (
        "duplicate stored slice",
        [slice_("Boxing", text="Trains three days a week.")],
        snap(nodes=(BOXING,), slice_keys=frozenset({(1, "other", "trains three days a week")})),
        ("slice", "Boxing", "duplicate"),
    ),
    (
        "alias that looks like a forgotten name",
        [node("Boxing", aliases=("Danny",))],
        snap(nodes=(BOXING,), tombstones=(_forgotten_dan(),)),
        ("alias", "Danny", "resembles_forgotten"),
    ),
    (
        "duplicate stored event",
        [event("Boxing", text="started boxing")],
        snap(nodes=(BOXING,), event_keys=frozenset({(1, "started", "started boxing")})),
        ("event", "Boxing", "duplicate"),
    ),
]


@pytest.mark.parametrize(
    ("proposals", "snapshot", "expected"),
    [pytest.param(p, s, e, id=name) for name, p, s, e in REJECTIONS],
)
def test_every_rejection_reason(proposals: Any, snapshot: Any, expected: Any) -> None:
    plan = plan_writes(proposals, snapshot)
    assert expected in reasons(plan)
    assert not plan.new_nodes and not plan.new_candidates and not plan.new_edges


def test_every_reason_in_the_vocabulary_is_exercised() -> None:
    from memory.vocab import RejectReason

    exercised = {e[2] for *_, e in REJECTIONS}
    # invalid_category and invalid_action cannot come out of the gate: the proposal schema maps
    # unknown values to "other" before the gate sees them (see test_proposals).
    assert set(RejectReason.values) - exercised == {"invalid_category", "invalid_action"}


@pytest.mark.parametrize(
    "label",
    [
        "Going",
        "Having Some of",
        "Was There",
        "Few Days",
        "Justing",
        "Is Important",
        "For Weeks",
        "Taste of",
        "Off That Stuff I Baked",
        "Coffee Two Weeks",
        "<b>R",
        "D Tracker</b>",
        "&T",
        "R&",
        "Going There",
        "Is Important",
    ],
)
def test_fragments_never_become_nodes_or_candidates(label: Any) -> None:
    plan = plan_writes([node(label), CandidateProposal(label=label, evidence=EV)], snap())
    assert not plan.new_nodes and not plan.new_candidates
    assert {r.reason for r in plan.rejected} == {"bad_label"}


@pytest.mark.parametrize(
    "label",
    [
        "R&D Tracker",
        "C++",
        "C#",
        "Node.js",
        "AT&T",
        "Tomás",
        "O'Neill",
        "Anne-Marie Lefèvre",
        "Swimming",
        "Fashion Week",
        "Trip to Japan",
        "World War I",
        "Fly.io",
        "Getting Things Done",
        "Being Mortal",
        "No Man's Sky",
        "There Will Be Blood",
    ],
)
def test_names_with_punctuation_and_accents_survive_intact(label: Any) -> None:
    plan = plan_writes([node(label)], snap())
    assert [c.label for c in plan.new_candidates] == [label]
    assert not plan.rejected


def test_marked_up_labels_are_cleaned_before_they_are_keyed() -> None:
    plan = plan_writes([node("<b>R&amp;D Tracker</b>"), node("**Figma**")], snap())
    assert sorted(c.label for c in plan.new_candidates) == ["Figma", "R&D Tracker"]


@pytest.mark.parametrize("suppressed", ["D Tracker</b>", "<i>D Tracker</i>", "d tracker"])
def test_suppressing_one_spelling_blocks_its_variants(suppressed: Any) -> None:
    key = canonical_key(suppressed)
    snapshot = snap(suppressions=(SuppressionRef(7, "node", key),))
    plan = plan_writes([node("D Tracker"), node("<b>D Tracker</b>")], snapshot)
    assert not plan.new_candidates
    assert [r.reason for r in plan.rejected] == ["suppressed_blocked", "suppressed_blocked"]


def test_duplicates_within_one_batch() -> None:
    plan = plan_writes(
        [
            slice_("Boxing", "Trains at dawn"),
            slice_("Boxing", "trains at dawn!"),
            event("Boxing", text="started boxing"),
            event("Boxing", text="Started boxing."),
            edge("Atlas", "Boxing"),
            edge("Atlas", "Boxing"),
        ],
        snap(nodes=(ATLAS, BOXING)),
    )
    assert len(plan.new_slices) == 1 and len(plan.new_events) == 1 and len(plan.new_edges) == 1
    assert [r.reason for r in plan.rejected] == ["duplicate"] * 3


# --- suppressions hold at every entry point ---------------------------------------------------

SUPPRESSED = (SuppressionRef(9, "candidate", "piano"),)


@pytest.mark.parametrize(
    ("proposals", "rules", "kind"),
    [
        pytest.param([node("Piano")], RulesRef(), "node", id="new candidate from a node"),
        pytest.param([node("Piano")], AUTO, "node", id="new node in auto mode"),
        pytest.param([event("Piano")], AUTO, "event", id="node on behalf of an event"),
        pytest.param([slice_("Piano")], AUTO, "slice", id="node on behalf of a slice"),
        pytest.param([event("Piano")], RulesRef(), "event", id="candidate on behalf of an event"),
        pytest.param(
            [CandidateProposal(label="PIANO", confidence=0.7, evidence=EV)],
            RulesRef(),
            "candidate",
            id="candidate",
        ),
    ],
)
def test_a_suppression_blocks_every_entry_point(proposals: Any, rules: Any, kind: Any) -> None:
    plan = plan_writes(proposals, snap(suppressions=SUPPRESSED, rules=rules))
    assert not plan.has_writes
    assert [(r.kind, r.reason) for r in plan.rejected] == [(kind, "suppressed_blocked")]
    assert plan.suppression_hits == (9,)


def test_a_suppression_blocks_a_candidate_bump() -> None:
    plan = plan_writes(
        [node("Piano")],
        snap(suppressions=SUPPRESSED, candidates=(CandidateRef(3, "piano", "Piano", "skill"),)),
    )
    assert not plan.candidate_bumps and reasons(plan) == [("node", "Piano", "suppressed_blocked")]


def test_a_suppression_on_an_alias_blocks_the_node() -> None:
    plan = plan_writes(
        [node("Universal Memory Engine", aliases=("UME",))],
        snap(suppressions=(SuppressionRef(4, "node", "ume"),), rules=AUTO),
    )
    assert not plan.has_writes and reasons(plan)[0][2] == "suppressed_blocked"


def test_an_expired_suppression_stops_blocking() -> None:
    expired = (SuppressionRef(9, "candidate", "piano", until=NOW - timedelta(seconds=1)),)
    plan = plan_writes([node("Piano")], snap(suppressions=expired))
    assert [c.label for c in plan.new_candidates] == ["Piano"]
    assert plan.suppression_hits == ()


def test_a_time_boxed_suppression_blocks_until_it_ends() -> None:
    boxed = (SuppressionRef(9, "candidate", "piano", until=NOW + timedelta(days=7)),)
    assert reasons(plan_writes([node("Piano")], snap(suppressions=boxed))) == [
        ("node", "Piano", "suppressed_blocked")
    ]


# --- identity: exact or alias, never fuzzy ----------------------------------------------------


@pytest.mark.parametrize(
    ("label", "existing"),
    [
        ("UML", ref(1, "UML College Society", "organization")),
        ("Rahul", ref(1, "Raoul", "person")),
        ("Atlas", ref(1, "Atlas Mobile", "project")),
        ("Meera Shah", ref(1, "Meera", "person")),
        ("Boxing Club", ref(1, "Boxing", "skill")),
    ],
)
def test_near_identical_identities_never_merge(label: Any, existing: Any) -> None:
    plan = plan_writes([node(label)], snap(nodes=(existing,)))
    assert not plan.node_updates
    assert [c.label for c in plan.new_candidates] == [label]


def test_a_near_identity_is_offered_as_a_hint_only() -> None:
    plan = plan_writes([node("UML")], snap(nodes=(ref(1, "UML College Society", "organization"),)))
    assert plan.new_candidates[0].possible_node_id == 1
    assert not plan.node_updates


@pytest.mark.parametrize(
    ("label", "existing"),
    [
        ("boxing", ref(1, "Boxing", "skill")),
        ("  BOXING. ", ref(1, "Boxing", "skill")),
        ("Zoë", ref(1, "Zoe", "person")),
        ("UML", ref(1, "Universal Memory Engine", aliases=("UML",))),
        ("Dr Kowalski", ref(1, "Dr. Kowalski", "person")),
    ],
)
def test_exact_key_or_alias_merges_into_the_node(label: Any, existing: Any) -> None:
    plan = plan_writes([node(label)], snap(nodes=(existing,)))
    assert [u.node_id for u in plan.node_updates] == [1]
    assert not plan.new_candidates and not plan.new_nodes


def test_a_proposed_alias_is_added_to_the_matched_node() -> None:
    plan = plan_writes([node("Atlas", aliases=("Atlas App", "atlas"))], snap(nodes=(ATLAS,)))
    assert plan.node_updates[0].new_aliases == ("Atlas App",)


def test_an_alias_owned_by_another_node_is_not_added() -> None:
    other = ref(3, "Atlas Mobile", aliases=("AM",))
    plan = plan_writes([node("Atlas", aliases=("AM",))], snap(nodes=(ATLAS, other)))
    assert plan.node_updates[0].node_id == 2 and plan.node_updates[0].new_aliases == ()


# --- batch convergence, candidates, auto capture ----------------------------------------------


def test_two_mentions_in_one_batch_converge_on_one_candidate() -> None:
    plan = plan_writes(
        [
            node("Atlas"),
            node("atlas"),
            CandidateProposal(label="ATLAS", confidence=0.6, evidence=EV),
        ],
        snap(),
    )
    assert len(plan.new_candidates) == 1
    assert plan.new_candidates[0].mentions == 3
    assert len(plan.new_candidates[0].evidence) == 3


def test_two_mentions_in_one_batch_converge_on_one_node_in_auto_mode() -> None:
    plan = plan_writes([node("Atlas"), node("atlas", aliases=("Atlas App",))], snap(rules=AUTO))
    assert len(plan.new_nodes) == 1
    assert plan.new_nodes[0].aliases == ("Atlas App",)


def test_details_on_a_new_identity_are_held_on_its_candidate() -> None:
    plan = plan_writes(
        [
            node("Boxing", category="skill"),
            event("Boxing", text="started boxing"),
            slice_("Boxing", "three days a week"),
        ],
        snap(),
    )
    (candidate,) = plan.new_candidates
    assert candidate.category == "skill"
    assert [p.object for p in candidate.held] == ["event", "slice"]
    assert not plan.new_events and not plan.new_slices
    assert plan.held_count == 2


def test_an_edge_to_a_candidate_is_held_on_it() -> None:
    plan = plan_writes(
        [node("Postgres", category="tool"), edge("Atlas", "Postgres")], snap(nodes=(ATLAS,))
    )
    assert [p.object for p in plan.new_candidates[0].held] == ["edge"]
    assert not plan.rejected


def test_a_pending_candidate_is_bumped_not_twinned() -> None:
    plan = plan_writes(
        [node("Piano"), event("piano", text="practised piano")],
        snap(candidates=(CandidateRef(5, "piano", "Piano", "skill"),)),
    )
    assert not plan.new_candidates
    (bump,) = plan.candidate_bumps
    assert bump.candidate_id == 5 and bump.mentions == 1 and len(bump.held) == 1


def test_auto_mode_writes_confident_identities_and_queues_unsure_ones() -> None:
    plan = plan_writes(
        [node("Atlas", confidence=0.95), node("Tennis", confidence=0.6)], snap(rules=AUTO)
    )
    assert [n.label for n in plan.new_nodes] == ["Atlas"]
    assert [c.label for c in plan.new_candidates] == ["Tennis"]


def test_auto_mode_creates_the_node_on_behalf_of_an_event() -> None:
    plan = plan_writes([event("Boxing", category="skill", confidence=0.9)], snap(rules=AUTO))
    assert [(n.label, n.category, n.on_behalf) for n in plan.new_nodes] == [
        ("Boxing", "skill", True)
    ]
    assert plan.new_events[0].target.node_id is None and plan.new_events[0].target.key == "boxing"


def test_review_mode_never_writes_a_new_node() -> None:
    plan = plan_writes([node("Atlas", confidence=1.0), event("Atlas"), slice_("Atlas")], snap())
    assert not plan.new_nodes and len(plan.new_candidates) == 1


# --- memory rules -------------------------------------------------------------------------------


def test_excludes_beat_includes() -> None:
    rules = RulesRef(includes=("health",), excludes=("knee",))
    plan = plan_writes(
        [slice_("Health", "knee surgery recovery"), slice_("Health", "health checkup in June")],
        snap(nodes=(ref(1, "Health", "health"),), rules=rules),
    )
    assert reasons(plan) == [("slice", "Health", "excluded_by_rule")]
    assert [s.text for s in plan.new_slices] == ["health checkup in June"]


def test_an_excluded_name_is_excluded_with_its_title_or_kind_dropped() -> None:
    """A rule that excludes "Mr Adebayo" excludes the card "Adebayo" (the same name, its
    title dropped), as a suppression would; "Mrs Adebayo" is another person and "Luka
    Markovic" is not an excluded "Dr Markovic"."""
    rules = RulesRef(excludes=("Mr Adebayo", "Dr Markovic", "Project Moonbeam"))
    labels = ["Adebayo", "Mrs Adebayo", "Markovic", "Luka Markovic", "Moonbeam", "Sunbeam"]
    plan = plan_writes([node(label) for label in labels], snap(rules=rules))
    assert reasons(plan) == [
        ("node", "Adebayo", "excluded_by_rule"),
        ("node", "Markovic", "excluded_by_rule"),
        ("node", "Moonbeam", "excluded_by_rule"),
    ]
    assert [c.label for c in plan.new_candidates] == ["Mrs Adebayo", "Luka Markovic", "Sunbeam"]


def test_a_detail_of_an_excluded_name_is_excluded() -> None:
    rules = RulesRef(excludes=("Mr Adebayo",))
    plan = plan_writes(
        [slice_("Adebayo", "moved to Leeds"), slice_("Mrs Adebayo", "is very kind")],
        snap(nodes=(ref(1, "Adebayo", "person"), ref(2, "Mrs Adebayo", "person")), rules=rules),
    )
    assert reasons(plan) == [("slice", "Adebayo", "excluded_by_rule")]
    assert [s.text for s in plan.new_slices] == ["is very kind"]


def test_rules_apply_to_references_and_evidence_quotes() -> None:
    quote = (EvidenceSpan(message_id="M0", quote="my grandmother died last spring"),)
    rules = RulesRef(excludes=("died",))
    plan = plan_writes(
        [
            NodeProposal(label="Grandmother", category="family", evidence=quote),
            edge("Atlas", "Secret Project"),
        ],
        snap(nodes=(ATLAS, ref(3, "Secret Project")), rules=RulesRef(excludes=("died", "secret"))),
    )
    assert reasons(plan) == [
        ("node", "Grandmother", "excluded_by_rule"),
        ("edge", "Atlas -> Secret Project", "excluded_by_rule"),
    ]
    assert rules.excludes == ("died",)


def test_rule_terms_match_whole_words_without_accents_or_case() -> None:
    rules = RulesRef(excludes=("cafe",))
    plan = plan_writes([node("Café Visits"), node("Cafeteria Menu")], snap(rules=rules))
    assert reasons(plan) == [("node", "Café Visits", "excluded_by_rule")]
    assert [c.label for c in plan.new_candidates] == ["Cafeteria Menu"]


# --- details on existing nodes -------------------------------------------------------------------


def test_progress_slices_supersede_and_other_kinds_do_not() -> None:
    plan = plan_writes(
        [slice_("Boxing", "trains daily", kind="progress"), slice_("Boxing", "coach is Sam")],
        snap(nodes=(BOXING,)),
    )
    assert [(s.kind, s.supersede) for s in plan.new_slices] == [
        ("progress", True),
        ("other", False),
    ]


def test_events_carry_the_state_their_action_implies() -> None:
    plan = plan_writes(
        [
            event("Boxing", "stopped", "stopped boxing"),
            event("Atlas", "launched", "launched Atlas"),
            event("Atlas", "decided", "chose Postgres"),
        ],
        snap(nodes=(BOXING, ATLAS)),
    )
    assert [(e.target.label, e.new_state) for e in plan.new_events] == [
        ("Boxing", "stopped"),
        ("Atlas", "active"),
        ("Atlas", None),
    ]


def test_events_keep_their_time_and_unknown_stays_unknown() -> None:
    dated = EventProposal.model_validate(
        {
            "on": "Berlin",
            "action": "moved",
            "text": "moved to Berlin",
            "happened_at": "2021-03",
            "evidence": [],
        }
    )
    plan = plan_writes([dated, event("Boxing")], snap(nodes=(ref(1, "Berlin", "place"), BOXING)))
    first, second = plan.new_events
    assert (first.happened_at, first.happened_at_precision, first.happened_at_source) == (
        datetime(2021, 3, 1, tzinfo=UTC),
        "month",
        "stated",
    )
    assert (second.happened_at, second.happened_at_precision, second.happened_at_source) == (
        None,
        "",
        "unknown",
    )


def test_the_gate_is_deterministic() -> None:
    proposals: list[AnyProposal] = [
        node("Atlas"),
        node("Boxing"),
        event("Atlas"),
        edge("Atlas", "Boxing"),
    ]
    assert plan_writes(proposals, snap(rules=AUTO)) == plan_writes(proposals, snap(rules=AUTO))


def test_an_edge_between_two_candidates_waits_on_the_first() -> None:
    plan = plan_writes(
        [node("Atlas"), node("Postgres", category="tool"), edge("Atlas", "Postgres")], snap()
    )
    held = {c.label: [p.object for p in c.held] for c in plan.new_candidates}
    assert held == {"Atlas": ["edge"], "Postgres": []}
    assert not plan.rejected


# --- another spelling of a suppressed name ----------------------------------------------------


@pytest.mark.parametrize(
    ("suppressed", "proposed"),
    [
        ("Project Moonbeam", "Moonbeam"),  # what the extractor makes of "Project Moonbeam"
        ("Moonbeam", "Project Moonbeam"),
        ("Project Moonbeam", "the Moonbeam project"),
        ("Harriet Vane", "Ms Harriet Vane"),
        ("Ms Vane", "Vane"),
        ("Apple the company", "Apple"),
        ("Bean Counters", "Bean Counter"),
    ],
)
def test_another_spelling_of_a_suppressed_name_is_blocked(suppressed: str, proposed: str) -> None:
    snapshot = snap(suppressions=(SuppressionRef(7, "node", canonical_key(suppressed)),))
    plan = plan_writes(
        [node(proposed), slice_(proposed), CandidateProposal(label=proposed, evidence=EV)],
        snapshot,
    )
    assert not plan.new_candidates and not plan.new_nodes and not plan.new_slices
    assert {r.reason for r in plan.rejected} == {"suppressed_blocked"}
    assert plan.suppression_hits == (7,)
    # nor as an alias of a node that exists
    aliased = plan_writes([node("Atlas", aliases=(proposed,))], replace_nodes(snapshot))
    assert not aliased.node_updates[0].new_aliases
    assert ("alias", proposed, "suppressed_blocked") in reasons(aliased)


def replace_nodes(snapshot: Snapshot) -> Snapshot:
    return Snapshot.empty(now=snapshot.now, suppressions=snapshot.suppressions, nodes=(ATLAS,))


@pytest.mark.parametrize(
    ("suppressed", "proposed"),
    [
        ("Project Moonbeam", "Sunbeam"),
        ("Harriet Vane", "Harriet"),  # a part of a name is not the name
        ("Apple the company", "Apple Pie"),
        ("Project Moonbeam", "Project Atlas"),
        ("Piano", "Piano Lessons"),
    ],
)
def test_a_name_that_only_shares_a_word_with_a_suppressed_one_is_kept(
    suppressed: str, proposed: str
) -> None:
    snapshot = snap(suppressions=(SuppressionRef(7, "node", canonical_key(suppressed)),))
    plan = plan_writes([node(proposed)], snapshot)
    assert [c.label for c in plan.new_candidates] == [proposed]
    assert not plan.rejected and not plan.suppression_hits


def cand(label: str) -> CandidateProposal:
    return CandidateProposal(label=label, confidence=0.6, evidence=EV)


def test_spellings_of_one_subject_in_one_batch_are_one_card() -> None:
    plan = plan_writes(
        [cand("Pottery class"), cand("pottery classes"), cand("Pottery"), event("Pottery")],
        snap(),
    )
    (card,) = plan.new_candidates
    assert card.label == "Pottery class"
    assert card.mentions == 3
    assert len(card.evidence) == 4 and len(card.held) == 1


def test_a_new_spelling_joins_the_pending_card() -> None:
    pending = (CandidateRef(4, "my sister ana", "my sister Ana", "person"),)
    plan = plan_writes([cand("Ana"), slice_("Ana", "Lives in Porto")], snap(candidates=pending))
    assert not plan.new_candidates
    (bump,) = plan.candidate_bumps
    assert (bump.candidate_id, bump.mentions, len(bump.held)) == (4, 1, 1)


@pytest.mark.parametrize(
    "pending, label",
    [
        ("UML", "UML College Society"),
        ("UML College Society", "UML"),
        ("Ana", "Ana Lopez"),
        ("Ana Lopez", "Ana"),
        ("my sister Ana", "my colleague Ana"),
        ("my colleague Ana", "my sister Ana"),
    ],
)
def test_near_identical_subjects_stay_two_cards(pending: str, label: str) -> None:
    waiting = (CandidateRef(4, canonical_key(pending), pending, "person"),)
    plan = plan_writes([cand(label)], snap(candidates=waiting))
    assert not plan.candidate_bumps
    assert [c.label for c in plan.new_candidates] == [label]
    # ... and in one batch, in either order
    plan = plan_writes([cand(pending), cand(label)], snap())
    assert [c.label for c in plan.new_candidates] == [pending, label]


def test_a_suppressed_spelling_does_not_join_a_card() -> None:
    pending = (CandidateRef(4, "pottery", "Pottery", "interest"),)
    suppressed = (SuppressionRef(9, "candidate", "pottery class"),)
    plan = plan_writes([cand("Pottery classes")], snap(candidates=pending, suppressions=suppressed))
    assert not plan.candidate_bumps and not plan.new_candidates
    assert [r.reason for r in plan.rejected] == ["suppressed_blocked"]
