/* SPDX-License-Identifier: GPL-2.0-or-later */
/* values.c - unit tests: the grammar of setting values: amounts, entries, mounts. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "settings.h"
#include "unit.h"
#include "values.h"

#define GiB (UINT64_C(1) << 30)

static bool amount_is(const char *str, enum hp_amount_kind kind, uint64_t value)
{
	struct hp_amount a = {0};

	return values_amount(str, &a) == 0 && a.kind == kind && a.value == value;
}

static int amount_rc(const char *str)
{
	struct hp_amount a;

	return values_amount(str, &a);
}

/* Counts, memory and shares: which the last character says. */
UNIT_TEST(amount, "counts, bytes and shares told apart by their last character")
{
	CHECK(amount_is("512", HP_AMOUNT_COUNT, 512));
	CHECK(amount_is("0", HP_AMOUNT_COUNT, 0));
	CHECK(amount_is("18446744073709551615", HP_AMOUNT_COUNT, UINT64_MAX));
	CHECK(amount_is("64G", HP_AMOUNT_BYTES, 64 * GiB));
	CHECK(amount_is("64GiB", HP_AMOUNT_BYTES, 64 * GiB));
	CHECK(amount_is("512m", HP_AMOUNT_BYTES, UINT64_C(512) << 20));
	CHECK(amount_is("4kB", HP_AMOUNT_BYTES, 4096));
	CHECK(amount_is("1P", HP_AMOUNT_BYTES, UINT64_C(1) << 50));
	CHECK(amount_is("50%", HP_AMOUNT_PERCENT, 5000));
	CHECK(amount_is("12.5%", HP_AMOUNT_PERCENT, 1250));
	CHECK(amount_is("0.01%", HP_AMOUNT_PERCENT, 1));
	CHECK(amount_is("100%", HP_AMOUNT_PERCENT, 10000));
	CHECK(amount_is("0%", HP_AMOUNT_PERCENT, 0));

	/* Hostile values: nothing half read, a sign, a space, overflow. */
	CHECK(amount_rc("") == -EINVAL);
	CHECK(amount_rc("-1") == -EINVAL);
	CHECK(amount_rc("+1") == -EINVAL);
	CHECK(amount_rc(" 1") == -EINVAL);
	CHECK(amount_rc("1 ") == -EINVAL);
	CHECK(amount_rc("0x10") == -EINVAL);
	CHECK(amount_rc("1.5G") == -EINVAL);
	CHECK(amount_rc("12B") == -EINVAL);
	CHECK(amount_rc("1E") == -EINVAL);
	CHECK(amount_rc("G") == -EINVAL);
	CHECK(amount_rc("%") == -EINVAL);
	CHECK(amount_rc("50.%") == -EINVAL);
	CHECK(amount_rc("12.345%") == -EINVAL);
	CHECK(amount_rc("50%%") == -EINVAL);
	CHECK(amount_rc("100.01%") == -ERANGE);
	CHECK(amount_rc("101%") == -ERANGE);
	CHECK(amount_rc("18446744073709551616") == -ERANGE);
	CHECK(amount_rc("16777216T") == -ERANGE); /* 2^64 bytes */
	CHECK(amount_rc("99999999999999999999%") == -ERANGE);

	CHECK(strcmp(values_error(-ERANGE), "out of range") == 0);
	CHECK(strcmp(values_error(-EINVAL), "malformed") == 0);
}

/* values_entry() on a copy of text: its rc, and the why it left. */
static int entry(const char *text, struct hp_entry *e, char *why, size_t wlen)
{
	char buf[256];

	memset(e, 0, sizeof(*e));
	why[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", text);
	return values_entry(buf, e, why, wlen);
}

UNIT_TEST(entry, "a pages entry SIZE:AMOUNT[@NODES], and what is wrong named")
{
	struct hp_entry e;
	char why[160];

	CHECK(entry("2M:512", &e, why, sizeof(why)) == 0);
	CHECK(e.size_kb == 2048 && e.amount.kind == HP_AMOUNT_COUNT &&
	      e.amount.value == 512 && e.all_nodes);
	CHECK(entry("1G:4@0,2-3", &e, why, sizeof(why)) == 0);
	CHECK(e.size_kb == 1048576 && !e.all_nodes && idset_count(&e.nodes) == 3 &&
	      idset_has(&e.nodes, 0) && !idset_has(&e.nodes, 1) &&
	      idset_has(&e.nodes, 2) && idset_has(&e.nodes, 3));
	CHECK(entry("2048kB:50%@1", &e, why, sizeof(why)) == 0);
	CHECK(e.size_kb == 2048 && e.amount.kind == HP_AMOUNT_PERCENT &&
	      e.amount.value == 5000 && idset_count(&e.nodes) == 1);
	CHECK(entry("3K:64G", &e, why, sizeof(why)) == 0); /* any whole kB */
	CHECK(e.size_kb == 3 && e.amount.kind == HP_AMOUNT_BYTES &&
	      e.amount.value == 64 * GiB);
	CHECK(entry("1G:1@1023", &e, why, sizeof(why)) == 0 && idset_has(&e.nodes, 1023));

	/* What is wrong is named, with the piece that is. */
	CHECK(entry("2M", &e, why, sizeof(why)) == -EINVAL &&
	      strcmp(why, "expected SIZE:AMOUNT[@NODES] or SIZE:AMOUNT@DEVICE") == 0);
	CHECK(entry("0:1", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("-2M:1", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:x", &e, why, sizeof(why)) == -EINVAL &&
	      strcmp(why, "amount 'x' is malformed (a count, a size like 64G, or 50%)") ==
		  0);
	CHECK(entry("2M:", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M::5", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:18446744073709551616", &e, why, sizeof(why)) == -ERANGE &&
	      strstr(why, "is out of range"));
	CHECK(entry("2M:101%", &e, why, sizeof(why)) == -ERANGE);
	CHECK(entry("2M:1@", &e, why, sizeof(why)) == -EINVAL &&
	      strcmp(why, "node list '' is malformed") == 0);
	CHECK(entry("2M:1@1024", &e, why, sizeof(why)) == -EINVAL &&
	      strcmp(why, "node list '1024' is out of range") == 0);
	CHECK(entry("2M:1@0-18446744073709551615", &e, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "out of range"));
	CHECK(entry("2M:1@0-99999999999999999999", &e, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "out of range"));
	CHECK(entry("2M:1@3-1", &e, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "malformed"));
	CHECK(entry("2M:1@0-", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@,", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@0,,1", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@0@1", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@ 0", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@\n", &e, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "malformed")); /* an empty set is no node list */

	/* A long piece is shown cut to 32 characters, and why never overflows. */
	CHECK(entry("2M:1@0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,x", &e, why, sizeof(why)) ==
		  -EINVAL &&
	      strcmp(why, "node list '0,1,2,3,4,5,6,7,8,9,10,11,12,13,' is malformed") ==
		  0);
	CHECK(entry("2M:x", &e, why, 8) == -EINVAL && strcmp(why, "amount ") == 0);
}

/* What to write instead: the size meant in the form the grammar takes, the range of
 * a share, a whole count. */
UNIT_TEST(hints, "sizes' forms named; 1gib: write 1G; 1.5G: write 1536M; 150%: the range")
{
	static const struct {
		const char *entry, *why;
	} cases[] = {
	    {"x:1", "page size 'x' is malformed: sizes are written 2M, 1G, 2048K"},
	    {"1536:1", "page size '1536' is not a whole number of kB: sizes are written "
		       "2M, 1G, 2048K"},
	    {"512:1",
	     "page size '512' is not a whole number of kB: sizes are written 2M, "
	     "1G, 2048K"},
	    {"17179869184G:1", "page size '17179869184G' is out of range: sizes are "
			       "written 2M, 1G, 2048K"},
	    {"1gib:1", "page size '1gib' is malformed: write 1G (sizes are written 2M, "
		       "1G, 2048K)"},
	    {"2mb:1", "page size '2mb' is malformed: write 2M (sizes are written 2M, 1G, "
		      "2048K)"},
	    {"2M:1.5G", "amount '1.5G' is malformed: write 1536M"},
	    {"2M:0.5 g", "amount '0.5 g' is malformed: write 512M"},
	    {"2M:1.3G",
	     "amount '1.3G' is malformed: write a whole number, such as 1331M"},
	    {"2M:0.3K",
	     "amount '0.3K' is malformed: write a whole number of K, M, G, T or P"},
	    {"2M:150%", "amount '150%' is out of range: a share is from 0% to 100%"},
	    {"2M:0.125%",
	     "amount '0.125%' is malformed: a share has at most two decimals "
	     "(12.5%, 0.25%)"},
	    {"2M:1.5", "amount '1.5' is malformed: a count of pages is a whole number"},
	    {"2M:99999999999999999999G", "amount '99999999999999999999G' is out of range "
					 "(a count, a size like 64G, or 50%)"},
	    {"2M:1.0000001G", "amount '1.0000001G' is malformed (a count, a size like "
			      "64G, or 50%)"},
	};
	struct hp_entry e;
	char why[160];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		CHECK(entry(cases[i].entry, &e, why, sizeof(why)) < 0);
		CHECK(strcmp(why, cases[i].why) == 0);
		if (strcmp(why, cases[i].why))
			fprintf(stderr, "%s: %s\n", cases[i].entry, why);
	}
}

UNIT_TEST(
    device,
    "a device instead of nodes: one PCI function or one interface as sysfs names it")
{
	struct hp_entry e;
	char why[200];

	CHECK(entry("2M:1G@pci:0000:3b:00.0", &e, why, sizeof(why)) == 0);
	CHECK(e.device == HP_DEVICE_PCI && strcmp(e.device_name, "0000:3b:00.0") == 0 &&
	      !e.all_nodes && idset_count(&e.nodes) == 0 &&
	      e.amount.kind == HP_AMOUNT_BYTES && e.amount.value == GiB);
	CHECK(entry("1G:4@pci:0000:AF:00.1", &e, why, sizeof(why)) == 0 &&
	      strcmp(e.device_name, "0000:af:00.1") == 0);
	CHECK(entry("2M:50%@net:eth0", &e, why, sizeof(why)) == 0);
	CHECK(e.device == HP_DEVICE_NET && strcmp(e.device_name, "eth0") == 0 &&
	      e.amount.kind == HP_AMOUNT_PERCENT);
	CHECK(entry("2M:1@net:enp59s0f0np0.1", &e, why, sizeof(why)) == 0);
	CHECK(entry("2M:1@net:a23456789012345", &e, why, sizeof(why)) == 0);
	CHECK(entry("2M:1@0", &e, why, sizeof(why)) == 0 && e.device == HP_DEVICE_NONE);

	CHECK(entry("2M:1@pci:0000:3b:00", &e, why, sizeof(why)) == -EINVAL &&
	      strcmp(why, "PCI address '0000:3b:00' is malformed (expected "
			  "pci:DDDD:BB:DD.F, as lspci -D writes it)") == 0);
	CHECK(entry("2M:1@pci:3b:00.0", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@pci:0000:3b:00.9", &e, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "'0000:3b:00.9' is out of range"));
	CHECK(entry("2M:1@pci:", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@PCI:0000:3b:00.0", &e, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "node list"));
	CHECK(entry("2M:1@0,pci:0000:3b:00.0", &e, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "an entry names a node list or one device, not both"));
	CHECK(entry("2M:1@pci:0000:3b:00.0,1", &e, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "not both nor two devices"));
	CHECK(entry("2M:1@pci:0000:3b:00.0,pci:0000:3b:00.1", &e, why, sizeof(why)) ==
		  -EINVAL &&
	      strstr(why, "write an entry for each"));
	CHECK(entry("2M:1@net:eth0,net:eth1", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@net:", &e, why, sizeof(why)) == -EINVAL &&
	      strcmp(why, "interface name '' is malformed (1 to 15 letters, digits, "
			  "'-', '_' or '.')") == 0);
	CHECK(entry("2M:1@net:a234567890123456", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@net:eth0:1", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@net:..", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@net:.", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@net:../../x", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@net:eth\xc3\xa9", &e, why, sizeof(why)) == -EINVAL);
	CHECK(entry("2M:1@net:eth 0", &e, why, sizeof(why)) == -EINVAL);
}

/* values_mount() on a copy of text; m is dropped by the caller. */
static int mount_of(const char *text, struct hp_mount *m, char *why, size_t wlen)
{
	char buf[256];

	memset(m, 0, sizeof(*m));
	why[0] = '\0';
	snprintf(buf, sizeof(buf), "%s", text);
	return values_mount(buf, m, why, wlen);
}

UNIT_TEST(mount, "a mount value SIZE:/PATH with its options, and what is wrong named")
{
	struct hp_mount m;
	char why[160];

	CHECK(mount_of("2M:/dev/hugepages", &m, why, sizeof(why)) == 0);
	CHECK(m.size_kb == 2048 && strcmp(m.path, "/dev/hugepages") == 0 && !m.owner &&
	      !m.group && !m.has_mode);
	settings_drop_mount(&m);
	CHECK(mount_of("1G:/mnt/huge1g,owner=qemu,group=kvm,mode=1770", &m, why,
		       sizeof(why)) == 0);
	CHECK(m.size_kb == 1048576 && strcmp(m.path, "/mnt/huge1g") == 0 &&
	      strcmp(m.owner, "qemu") == 0 && strcmp(m.group, "kvm") == 0 && m.has_mode &&
	      m.mode == 01770);
	settings_drop_mount(&m);
	/* the later of two same options wins */
	CHECK(mount_of("2M:/h,owner=a,owner=1000,mode=0700,mode=0755", &m, why,
		       sizeof(why)) == 0);
	CHECK(strcmp(m.owner, "1000") == 0 && m.mode == 0755);
	settings_drop_mount(&m);
	CHECK(mount_of("2M:/h,mode=0", &m, why, sizeof(why)) == 0 && m.has_mode &&
	      m.mode == 0);
	settings_drop_mount(&m);

	CHECK(mount_of("2M:dev/hugepages", &m, why, sizeof(why)) == -EINVAL &&
	      strcmp(why, "expected SIZE:/PATH[,owner=U][,group=G][,mode=OCTAL]") == 0);
	settings_drop_mount(&m);
	CHECK(mount_of("/dev/hugepages", &m, why, sizeof(why)) == -EINVAL);
	settings_drop_mount(&m);
	CHECK(mount_of("2X:/h", &m, why, sizeof(why)) == -EINVAL &&
	      strcmp(why, "page size '2X' is malformed") == 0);
	settings_drop_mount(&m);
	CHECK(mount_of("100:/h", &m, why, sizeof(why)) == -EINVAL);
	settings_drop_mount(&m);
	CHECK(mount_of("2M:/h,mode=8", &m, why, sizeof(why)) == -EINVAL &&
	      strcmp(why, "option 'mode=8': expected owner=, group= or mode=OCTAL") == 0);
	settings_drop_mount(&m);
	CHECK(mount_of("2M:/h,mode=10000", &m, why, sizeof(why)) == -EINVAL);
	settings_drop_mount(&m);
	CHECK(mount_of("2M:/h,mode=", &m, why, sizeof(why)) == -EINVAL);
	settings_drop_mount(&m);
	CHECK(mount_of("2M:/h,owner=", &m, why, sizeof(why)) == -EINVAL);
	settings_drop_mount(&m);
	CHECK(mount_of("2M:/h,uid=0", &m, why, sizeof(why)) == -EINVAL &&
	      strstr(why, "'uid=0'"));
	settings_drop_mount(&m);
}

static void format(enum hp_amount_kind kind, uint64_t value, char *buf, size_t len)
{
	struct hp_amount a = {kind, value};

	values_amount_format(&a, buf, len);
}

UNIT_TEST(format,
	  "amounts written back as counts, sizes and shares, never past the buffer")
{
	char buf[32];

	format(HP_AMOUNT_COUNT, 512, buf, sizeof(buf));
	CHECK(strcmp(buf, "512") == 0);
	format(HP_AMOUNT_COUNT, UINT64_MAX, buf, sizeof(buf));
	CHECK(strcmp(buf, "18446744073709551615") == 0);
	format(HP_AMOUNT_BYTES, 64 * GiB, buf, sizeof(buf));
	CHECK(strcmp(buf, "64G") == 0);
	format(HP_AMOUNT_BYTES, UINT64_C(1536) << 20, buf, sizeof(buf));
	CHECK(strcmp(buf, "1.5G") == 0);
	format(HP_AMOUNT_PERCENT, 5000, buf, sizeof(buf));
	CHECK(strcmp(buf, "50%") == 0);
	format(HP_AMOUNT_PERCENT, 1250, buf, sizeof(buf));
	CHECK(strcmp(buf, "12.50%") == 0);
	format(HP_AMOUNT_PERCENT, 1, buf, sizeof(buf));
	CHECK(strcmp(buf, "0.01%") == 0);
	format(HP_AMOUNT_PERCENT, 0, buf, sizeof(buf));
	CHECK(strcmp(buf, "0%") == 0);
	format(HP_AMOUNT_PERCENT, 1250, buf, 4); /* cut, never past the buffer */
	CHECK(strcmp(buf, "12.") == 0);
}
