/* SPDX-License-Identifier: GPL-2.0-or-later */
/* setlist.c - the other setters of the pools (setters.h) as text and as JSON: for
 * plan, the record and status. */
#include <stdio.h>

#include "text.h"
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
		text_put_printable(f, s->origin);
		fputs(": ", f);
		if (s->setting[0]) {
			text_put_printable(f, s->setting);
			fputs(": ", f);
		}
		text_put_printable(f, s->effect);
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
