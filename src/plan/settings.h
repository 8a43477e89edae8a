/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * settings.h - config files and the kernel command line, merged into one struct.
 *
 * Nothing is cut or dropped without a word: entries, problems and sources have no
 * fixed limit, a value too long to show is shown with its length, and a file that is
 * not a regular file, or too large, is a problem of its own.
 */
#ifndef HUGEPAR_SETTINGS_H
#define HUGEPAR_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "values.h"

struct hp_problem {
	char *origin;
	char *key;
	char *value; /* as written; a long one shortened, with its length said */
	char *message;
};

/* A device an entry names, and the node read for it (resolve.h). */
struct hp_device_use {
	char *entry;   /* the entry as written */
	char *origin;  /* where it was written */
	char name[48]; /* "pci:0000:3b:00.0", "net:eth0" */
	char pci[24];  /* the PCI function whose numa_node was read, or "" */
	int node;      /* the node the entry stands for, or -1 */
	char *problem; /* why there is none, or "" */
};

enum hp_mode { HP_MODE_GROW, HP_MODE_EXACT };
enum hp_on_short { HP_SHORT_CONTINUE, HP_SHORT_FAIL };
/* The kernel's vmemmap optimization (HVO): hugepar turns it on where it pays
 * (plan/vmemmap.c), turns it on whatever it pays, or leaves it as the kernel has it. */
enum hp_vmemmap { HP_VMEMMAP_AUTO, HP_VMEMMAP_OPTIMIZE, HP_VMEMMAP_KEEP };

struct hp_settings {
	bool enabled;
	char *enabled_by; /* "rd.hugepar=0 (kernel command line)", NULL: the default */
	struct hp_amount keep_free; /* memory each node keeps free */
	char *keep_free_origin;	    /* where keep_free was set, NULL: the default */
	char *keep_free_key;	    /* the key as written there */
	unsigned workers;	    /* 0: auto (the key "threads") */
	char *workers_origin;	    /* where threads was set, NULL: the default */
	char *workers_key;	    /* the key as written there */
	uint64_t timeout_ms;
	enum hp_mode mode;
	/* Shares and caps are rounded down to this, per node and size (stable counts
	 * across boots); granularity_auto: a power of two of pages, at most 1% of the
	 * count rounded (plan_granularity()). */
	struct hp_amount granularity;
	bool granularity_auto;
	enum hp_on_short on_short;
	enum hp_vmemmap vmemmap;
	unsigned nmounts;
	struct hp_mount *mounts;
	/* node_exporter's textfile as set, NULL: the default, or none when no_textfile
	 * (settings_textfile()) */
	char *textfile;
	bool no_textfile;
	unsigned nentries;
	struct hp_entry *entries;
	unsigned nproblems;
	struct hp_problem *problems;
	/* what was taken but is worth a word: an old key's name (settings_notice()) */
	unsigned nnotices;
	struct hp_problem *notices;
	unsigned ndevices; /* the devices entries name, once read (resolve.h) */
	struct hp_device_use *devices;
	unsigned nsources;
	char **sources;
	unsigned creds_denied; /* the firmware's credentials this user could not read */
	uint64_t digest;       /* of the settings files read, names and contents */
	char *config;	       /* the settings file asked for (its .d follows it) */
	bool failed; /* out of memory while reading: the settings are not whole */
};

#define HP_DEFAULT_KEEP_FREE (UINT64_C(512) << 20)
/* granularity = auto: steps of at most 1/HP_AUTO_STEP_PER of the count */
#define HP_AUTO_STEP_PER    100
#define HP_DEFAULT_TEXTFILE "/var/lib/prometheus/node-exporter/hugepar.prom"
#define HP_DEFAULT_TIMEOUT  60000
#define HP_MAX_TIMEOUT_MS   (UINT64_C(3600) * 1000)
#define HP_MAX_THREADS	    4096
/* A settings file larger than this is not read (and said so). */
#define HP_MAX_FILE (UINT64_C(1) << 20)
/* Values longer than this are shown shortened in messages, with their length. */
#define HP_SHOW_VALUE 80

void settings_init(struct hp_settings *s);
/* "fnv1a64:0123456789abcdef": the digest of the settings files (not of the command
 * line), to tell whether the files now differ from those a boot used. */
void settings_digest(const struct hp_settings *s, char *buf, size_t len);
/* Free what s holds: s is then as settings_init() leaves it, holding nothing. */
void settings_free(struct hp_settings *s);

/* Read one config file (regular files only). -ENOENT when missing; other troubles
 * are recorded as problems. */
int sources_load_file(struct hp_settings *s, const char *file);
/* The text of a settings file (len bytes, changed in place: its lines are cut out),
 * read as sources_load_file() reads the file's, its lines named NAME:LINE. */
void sources_load_text(struct hp_settings *s, const char *name, char *text, size_t len);
/* Read FILE, then FILE.d/ (*.conf, in name order). A missing FILE is fine unless
 * 'required' (given on the command line): then it is -ENOENT. */
int sources_load_config(struct hp_settings *s, const char *file, bool required);
/* The same under root (the root file system to be, /sysroot, seen from the
 * initramfs): root+FILE and its .d read, known by their names without root, as the
 * system that root holds will read them (the record, the digest). */
int sources_load_config_at(struct hp_settings *s, const char *root, const char *file,
			   bool required);
/* The rd.hugepar keys dracut bakes into an initramfs (dracut --kernel-cmdline):
 * /etc/cmdline and /etc/cmdline.d/ *.conf under the path layer's root, as dracut's
 * own getarg reads them, before the running kernel's command line. */
void sources_load_baked(struct hp_settings *s);
/* The credential hugepar.conf, a settings file's text, where the platform gives it
 * (creds.h), named "credential hugepar.conf (SOURCE)"; the others systemd would not
 * take are notices, and one that cannot be read a problem. cmdline: the kernel's,
 * for its systemd.set_credential= words. */
void sources_load_credentials(struct hp_settings *s, const char *cmdline);
/* Take the rd.hugepar keys of a kernel command line. */
void sources_load_cmdline(struct hp_settings *s, const char *cmdline);
void sources_load_cmdline_from(struct hp_settings *s, const char *cmdline,
			       const char *origin);

/* Free an entry or a mount taken out of s->entries or s->mounts. */
void settings_drop_entry(struct hp_entry *e);
void settings_drop_mount(struct hp_mount *m);

/* Grow one of the arrays by one element; false (and s->failed) when memory is out. */
bool settings_grow(struct hp_settings *s, void **arr, unsigned n, size_t size);
/* A problem of a setting, recorded, never fatal; a value too long is shown by its
 * start and its length. */
void settings_problem(struct hp_settings *s, const char *origin, const char *key,
		      const char *value, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The same for a notice: a setting taken, with a word for its author. */
void settings_notice(struct hp_settings *s, const char *origin, const char *key,
		     const char *value, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The problems of 'pages' entries: each an entry that was given and not taken. */
unsigned settings_pages_rejected(const struct hp_settings *s);
/* A notice for each entry that later ones of its size replace on every node it
 * names (not done), or on some of the nodes a list names, on the machine t (an entry
 * for every node that later ones replace on some is as meant). Devices' entries once
 * resolved (resolve.h). */
struct hp_topology;
void settings_note_replaced(struct hp_settings *s, const struct hp_topology *t);
/* Where a setting of this origin ("FILE:LINE", "credential hugepar.conf (smbios):2",
 * "kernel command line") is corrected: a file of the initramfs, the credential where
 * the platform gives it, or the kernel command line. */
enum hp_place { HP_PLACE_FILE = 1, HP_PLACE_CREDENTIAL = 2, HP_PLACE_CMDLINE = 4 };
enum hp_place settings_place(const char *origin);
/* The places (a mask of them) of the problems, or of the pages entries' only. */
unsigned settings_problem_places(const struct hp_settings *s, bool pages_only);
/* Note a source read (sources.c), once. */
void settings_add_source(struct hp_settings *s, const char *src);

/* node_exporter's textfile: as set, the default, or NULL for none. */
const char *settings_textfile(const struct hp_settings *s);

const char *settings_mode_name(enum hp_mode m);
const char *settings_on_short_name(enum hp_on_short o);
const char *settings_vmemmap_name(enum hp_vmemmap v);

#endif
