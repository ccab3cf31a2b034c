"""The hooks a rule plugin may implement.

Each ``firstresult`` hook below answers for one rule slot (``HOOK_SLOTS``),
and the calendar (``rulesets/slots.yaml``) picks, per date, which registered plugin's
implementation answers it: the engine calls that implementation directly
through ``rules.call`` (:class:`uschess.calendar.rulebook.Rules`).  A reform's
extra plugin objects answer first and can hand a case back by returning
``None``, as pluggy's ``firstresult`` order has it.  ``p`` is the resolved
parameter bundle (:class:`uschess.calendar.rulebook.Params`): plugins take
every number from it.  A hook that needs another (initialization needs the
age-based rating) receives the same ``rules.call`` object as ``hook``.

:class:`RulePackSpec` is not a slot: a rule pack implements it once to ship
its calendar rows as data.
"""

import pluggy

PROJECT = "uschess"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

#: The slot each hook answers for (a rating that called the hook depended on
#: the plugin in force for that slot).  The rule book refuses to load unless
#: every hook is here and rulesets/slots.yaml has a calendar for every slot.
HOOK_SLOTS = {
    "uschess_classify": "classify",
    "uschess_age_rating": "age",
    "uschess_initial_rating": "initialize",
    "uschess_special_rating": "special",
    "uschess_k_factor": "k_factor",
    "uschess_bonus_eligible": "bonus",
    "uschess_personal_floor": "floors",
    "uschess_store_rating": "storage",
    "uschess_match_held": "match_unallowed",
}

#: Methods a plugin of a slot provides besides its hook, for the parts of the
#: engine that need the same rule outside the hook: a FIDE update (sec. 6)
#: converts its opponents' FIDE ratings with the conversion of the
#: initialization in force (sec. 2.1), so a conversion of another shape reaches
#: both.  The rule book refuses a plugin that lacks one.
SLOT_METHODS = {
    "initialize": ("fide_us", "cfc_us", "fide_youth_us"),
}

@hookspec(firstresult=True)
def uschess_classify(tc, online, p):
    """Systems a section with time control ``tc`` (uschess.timecontrol.TimeControl)
    is rated in, as a list (empty: rated in none).  2025 footnote 1."""


@hookspec(firstresult=True)
def uschess_age_rating(player, on, p):
    """(rating, how) the age-based rating of sec. 2.3 on date ``on``, or None
    when this rule set gives no age-based rating (no birth date, not adult)."""


@hookspec(firstresult=True)
def uschess_initial_rating(player, system, end, p, hook):
    """Step 1 (sec. 2): an :class:`uschess.rules.base.Initial` for a player
    unrated in ``system`` at a section ending ``end``.  ``hook`` is the
    section's ``rules.call`` (for the age-based rating)."""


@hookspec(firstresult=True)
def uschess_special_rating(r0, n_eff, opponents, score, wins, losses, all_wins,
                           all_losses, n, p, trace):
    """The special rating formula (sec. 4.1)."""


@hookspec(firstresult=True)
def uschess_k_factor(r0, n_eff, m, system, tc, half_k, otbr, systems, p):
    """K of the standard formula (sec. 4.2) with its exceptions.  ``otbr`` is
    the player's pre-event OTBR rating (or None); ``systems`` the systems the
    section is actually rated in (the dual-rating exception applies only in a
    dual-rated section)."""


@hookspec(firstresult=True)
def uschess_bonus_eligible(m, opponent_counts, p):
    """Whether the bonus term applies (sec. 4.2): ``opponent_counts`` maps each
    opponent to the number of games against them."""


@hookspec(firstresult=True)
def uschess_personal_floor(system, after, event, p):
    """The :class:`uschess.rules.base.Floor` for a player's final rating in
    ``system`` given the record after the event (sec. 5).  ``event`` is what
    the event being rated added (:class:`uschess.rules.base.EventCounts`, or
    None for a record outside any event): the floor counts it even where the
    record's earlier counts are unknown."""


@hookspec(firstresult=True)
def uschess_store_rating(pre, value, p):
    """The rating as stored: full precision (000 sec. 8) or an integer
    rounded away from the pre-event rating (002)."""


@hookspec(firstresult=True)
def uschess_match_held(established, rated, p):
    """Whether a player of a match pair that sec. 7 restriction 1 does not
    allow (a player not established, or ratings more than
    ``match_max_rating_gap`` apart), in a section US Chess rated as a match
    all the same, keeps the pre-event rating (the games still counted; the
    opponent rated against that rating) instead of being rated as a match.
    ``established``: the player holds an established rating in the system;
    ``rated``: the player holds a rating there at all."""


class RulePackSpec:
    """What an installed rule pack (entry-point group ``uschess.rules``) adds
    besides its plugins."""

    @hookspec
    def uschess_rule_calendars(self):
        """Paths (or importlib resources) of the pack's calendar files: YAML
        with ``slots:`` (slot -> ``values:``, as in ``rulesets/slots.yaml``) and
        optionally ``documents:`` (as in ``rulesets/documents.yaml``) for the
        sources its rows cite."""
