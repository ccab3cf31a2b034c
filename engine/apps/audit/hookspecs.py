"""The hook an audit cause plugin implements.

A cause is a variant of the event, rated again, that reproduces a published
rating the rules in force miss.  The causes the audit tries for each such
rating are the :class:`~uschess.apps.audit.cause.CauseCheck` objects every
plugin registered with :data:`PROJECT` returns from
:meth:`AuditSpec.uschess_audit_causes` (the audit's own in
:mod:`uschess.apps.audit.checks`; an installed package adds its own through
the entry-point group :data:`ENTRY_POINTS`).
"""

import pluggy

PROJECT = "uschess_audit"
ENTRY_POINTS = "uschess.audit"
auditspec = pluggy.HookspecMarker(PROJECT)
auditimpl = pluggy.HookimplMarker(PROJECT)


class AuditSpec:
    @auditspec
    def uschess_audit_causes(self):
        """The cause checks this plugin adds, in the order they are tried
        (a list of :class:`~uschess.apps.audit.cause.CauseCheck`)."""
