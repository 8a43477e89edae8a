/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setlist.c - the other setters of the pools (setters.h) as text and as JSON: for
 * plan, the record and status. */
#include <stdio.h>

#include "json.h"
#include "parse.h"
#include "setlist.h"

void setlist_text(FILE *f, const struct hp_setters *st)
{
	if (!st || !st->n)
		return;
	fprintf(f, "\nOther setters of the pools (%u, %u in force):\n", st->n,
		setters_in_force(st));
	for (unsigned i = 0; i < st->n; i++) {
		const struct hp_setter *s = &st->s[i];

		fputs("  ", f);
		put_printable(f, s->origin);
		fputs(": ", f);
		if (s->setting[0]) {
			put_printable(f, s->setting);
			fputs(": ", f);
		}
		put_printable(f, s->effect);
		fputc('\n', f);
	}
	if (st->more)
		fputs("  (more, not shown)\n", f);
	if (setters_in_force(st))
		fputs(
		    "  To leave the pools to hugepar, remove those in force and write "
		    "the pools in\n  /etc/hugepar.conf (hugepar(8), OTHER SETTERS OF THE "
		    "POOLS).\n",
		    f);
}

void setlist_json(struct json_out *j, const struct hp_setters *st)
{
	json_open(j, "setters", '[');
	for (unsigned i = 0; st && i < st->n; i++) {
		json_open(j, NULL, '{');
		json_str(j, "origin", st->s[i].origin);
		json_str(j, "setting", st->s[i].setting);
		json_str(j, "effect", st->s[i].effect);
		json_bool(j, "in_force", st->s[i].in_force);
		json_close(j, '}');
	}
	json_close(j, ']');
}
