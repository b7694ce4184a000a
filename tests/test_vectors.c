// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Public decoder test vectors from ../shared/testdata:
 *
 * - Markus Kuhn's UTF-8-test.txt, line by line. The verdict each section
 *   calls for is transcribed below from the file's prose; every line is
 *   also compared with the reference under every flag combination, cut in
 *   two at every point.
 * - wakaba's utf8-*.dat: the stream is fed the case's own chunks, and the
 *   input converted with one U+FFFD per reported maximal subpart must give
 *   exactly the characters and error offsets the case lists.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"

static u8 *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	u8 *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc(n + 1);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = n;
	}
	fclose(f);
	return buf;
}

/* What Kuhn's prose says of a section, strict and with UTF8VAL_RFC2279. */
struct kuhn_verdict {	/* unset fields are 0: no flag */
	const char *id;		/* section; the longest matching one applies */
	u8 first;		/* first non-ASCII byte of the line, 0: any */
	u8 strict, rfc2279;	/* expected errors */
	unsigned int allow;	/* a flag that makes the line valid */
	unsigned int reject;	/* a policy flag that makes it invalid */
	u8 policy_err;
};

enum { OK = UTF8VAL_OK, CONT = UTF8VAL_ECONTINUATION,
       BAD = UTF8VAL_EBADBYTE, SHORT = UTF8VAL_ESHORT,
       OVERLONG = UTF8VAL_EOVERLONG, SURR = UTF8VAL_ESURROGATE,
       LARGE = UTF8VAL_ETOOLARGE };

static const struct kuhn_verdict kuhn[] = {
	{ "1", 0, OK, OK },
	{ "2", 0, OK, OK },
	{ "2.1.1", 0, OK, OK, 0, UTF8VAL_REJECT_NUL, UTF8VAL_ENUL },
	{ "2.1.5", 0, BAD, OK },	/* 5 bytes, U+200000 */
	{ "2.1.6", 0, BAD, OK },	/* 6 bytes, U+4000000 */
	{ "2.2.3", 0, OK, OK, 0, UTF8VAL_REJECT_NONCHAR, UTF8VAL_ENONCHAR },
	{ "2.2.4", 0, LARGE, OK },	/* U+1FFFFF */
	{ "2.2.5", 0, BAD, OK },
	{ "2.2.6", 0, BAD, OK },
	{ "2.3.4", 0, OK, OK, 0, UTF8VAL_REJECT_NONCHAR, UTF8VAL_ENONCHAR },
	{ "2.3.5", 0, LARGE, OK },	/* U+110000 */
	{ "3.1", 0, CONT, CONT },
	{ "3.2.1", 0xc0, OVERLONG, OVERLONG },
	{ "3.2.1", 0xd0, SHORT, SHORT },
	{ "3.2.2", 0, SHORT, SHORT },
	{ "3.2.3", 0, SHORT, SHORT },
	{ "3.2.4", 0, BAD, SHORT },
	{ "3.2.5", 0, BAD, SHORT },
	{ "3.3.1", 0, OVERLONG, OVERLONG },
	{ "3.3.2", 0, OVERLONG, OVERLONG },
	{ "3.3.3", 0, OVERLONG, OVERLONG },
	{ "3.3.4", 0, BAD, OVERLONG },
	{ "3.3.5", 0, BAD, OVERLONG },
	{ "3.3.6", 0, SHORT, SHORT },
	{ "3.3.7", 0, SHORT, SHORT },
	{ "3.3.8", 0, LARGE, SHORT },
	{ "3.3.9", 0, BAD, SHORT },
	{ "3.3.10", 0, BAD, SHORT },
	{ "3.4", 0, OVERLONG, OVERLONG },
	{ "3.5", 0, BAD, BAD },
	{ "4", 0, OVERLONG, OVERLONG },
	{ "4.1.4", 0, BAD, OVERLONG },
	{ "4.1.5", 0, BAD, OVERLONG },
	{ "4.2.4", 0, BAD, OVERLONG },
	{ "4.2.5", 0, BAD, OVERLONG },
	{ "4.3.4", 0, BAD, OVERLONG },
	{ "4.3.5", 0, BAD, OVERLONG },
	{ "5.1", 0, SURR, SURR, UTF8VAL_SURROGATES },
	{ "5.2", 0, SURR, SURR, UTF8VAL_SURROGATES },
	{ "5.3", 0, OK, OK, 0, UTF8VAL_REJECT_NONCHAR, UTF8VAL_ENONCHAR },
};

/* Is @prefix a whole-component prefix of @id ("3.1" of "3.1.9")? */
static bool section_of(const char *prefix, const char *id)
{
	size_t n = strlen(prefix);

	return !strncmp(prefix, id, n) && (id[n] == '\0' || id[n] == '.');
}

static const struct kuhn_verdict *kuhn_lookup(const char *id, u8 first)
{
	const struct kuhn_verdict *best = NULL;

	for (size_t i = 0; i < sizeof(kuhn) / sizeof(kuhn[0]); i++) {
		const struct kuhn_verdict *v = &kuhn[i];

		if (!section_of(v->id, id) || (v->first && v->first != first))
			continue;
		if (!best || strlen(v->id) > strlen(best->id) ||
		    (v->first && !best->first))
			best = v;
	}
	return best;
}

/* Where the line's test bytes start: the first byte >= 0x80, or a NUL. */
static size_t first_special(const u8 *line, size_t len)
{
	size_t i = 0;

	while (i < len && line[i] && line[i] < 0x80)
		i++;
	return i;
}

static bool expect(const u8 *line, size_t len, unsigned int flags,
		   enum utf8val_error err, size_t at, const char *id)
{
	struct utf8val_result r;

	utf8val_validate(line, len, flags, &r);
	if (r.error == err && (err ? r.valid_up_to == at : r.valid_up_to == len))
		return true;
	printf("# kuhn %s, flags %#x: want %s at %zu, got %s at %llu\n", id,
	       flags, utf8val_error_name(err), at,
	       utf8val_error_name(r.error), r.valid_up_to);
	return false;
}

static bool kuhn_line(const u8 *line, size_t len, const char *id,
		      bool fixed_width)
{
	size_t at = first_special(line, len);
	const struct kuhn_verdict *v = kuhn_lookup(id, at < len ? line[at] : 0);
	struct utf8val_result r;
	bool ok = true;

	if (at == len || !v) {
		/* prose and headings: plain ASCII */
		v = &kuhn[0];
	}
	ok &= expect(line, len, 0, v->strict, at, id);
	ok &= expect(line, len, UTF8VAL_RFC2279, v->rfc2279, at, id);
	if (v->allow)
		ok &= expect(line, len, v->allow, UTF8VAL_OK, at, id);
	if (v->reject)
		ok &= expect(line, len, v->reject, v->policy_err, at, id);

	/*
	 * "All lines in this file are exactly 79 characters long", except,
	 * in this copy, the 5.3.3 and 5.3.4 noncharacter lines: 61.
	 */
	if (fixed_width && !section_of("5.3", id) &&
	    utf8val_validate(line, len, UTF8VAL_RFC2279 | UTF8VAL_SURROGATES,
			     &r) == UTF8VAL_OK && r.chars != 79) {
		printf("# kuhn %s: %llu characters, not 79\n", id, r.chars);
		ok = false;
	}
	for (unsigned int f = 0; f <= UTF8VAL_FLAGS_ALL; f++)
		ok &= compare_all(line, len, f,
				  CMP_STREAM_EVERY_SPLIT | CMP_DECODE, NULL);
	return ok;
}

static void test_kuhn(const char *dir)
{
	char path[512], id[16] = "0", last_id[16] = "";
	unsigned int lines = 0, bad = 0, sections = 0;
	bool tests_begun = false;
	size_t len, start = 0;
	u8 *text;

	snprintf(path, sizeof(path), "%s/testdata/kuhn/UTF-8-test.txt", dir);
	text = slurp(path, &len);
	if (!text) {
		tap_result(false, "kuhn: cannot read %s", path);
		return;
	}
	while (start < len) {
		size_t end = start;
		unsigned int idlen = 0;

		while (end < len && text[end] != '\n')
			end++;
		/* A line that starts with a section number opens a section. */
		while (idlen < sizeof(id) - 1 && start + idlen < end &&
		       ((text[start + idlen] >= '0' && text[start + idlen] <= '9') ||
			(idlen && text[start + idlen] == '.')))
			idlen++;
		if (idlen && start + idlen < end && text[start + idlen] == ' ') {
			memcpy(id, text + start, idlen);
			id[idlen] = '\0';
			if (id[idlen - 1] == '.')
				id[idlen - 1] = '\0';
		}
		if (strcmp(id, last_id)) {
			strcpy(last_id, id);
			sections++;
		}
		if (!memcmp(text + start, "Here come the tests:", 20))
			tests_begun = true;
		lines++;
		bad += !kuhn_line(text + start, end - start, id, tests_begun);
		start = end + 1;
	}
	free(text);
	tap_result(!bad && lines >= 290,
		   "kuhn UTF-8-test.txt: %u lines in %u sections, %u wrong",
		   lines, sections, bad);
}

/* wakaba: decode one #b line ("\xHH" escapes, "_" is an empty chunk). */
static size_t unescape_bytes(const char *s, u8 *out)
{
	size_t n = 0;

	if (!strcmp(s, "_"))
		return 0;
	while (*s) {
		if (s[0] == '\\' && s[1] == 'x') {
			out[n++] = strtoul((char[]){ s[2], s[3], 0 }, NULL, 16);
			s += 4;
		} else {
			out[n++] = *s++;
		}
	}
	return n;
}

/* wakaba: decode a #c line into code points ("\u{HEX}" escapes, UTF-8). */
static size_t unescape_chars(const char *s, u32 *out)
{
	size_t n = 0;

	while (*s) {
		if (s[0] == '\\' && s[1] == 'u' && s[2] == '{') {
			char *end;

			out[n++] = strtoul(s + 3, &end, 16);
			s = end + 1;
		} else {
			u32 cp, k;

			if (utf8val_decode(s, strlen(s), 0, &cp, &k))
				return (size_t)-1;
			out[n++] = cp;
			s += k;
		}
	}
	return n;
}

struct wakaba_case {
	u8 bytes[256];
	size_t nbytes;
	size_t cuts[32];	/* end of each chunk */
	size_t nchunks;
	u32 chars[256];
	size_t nchars;
	size_t errors[32];	/* offsets listed under #errors */
	size_t nerrors;
	bool skip;		/* BOM sniffing: a decoder choice, not UTF-8 */
	bool strip_bom;		/* the case models a BOM-stripping decoder */
};

/* Convert with U+FFFD per maximal subpart, as the core reports them. */
static bool wakaba_check(const struct wakaba_case *c, unsigned int line)
{
	u32 got[256];
	size_t errs[64], ngot = 0, nerrs = 0, at = 0;
	struct utf8val_stream st;
	struct utf8val_result whole, streamed;
	bool ok = true;

	while (at < c->nbytes && ngot < 256 && nerrs < 64) {
		struct utf8val_result r;

		utf8val_validate(c->bytes + at, c->nbytes - at, 0, &r);
		for (size_t i = 0; i < r.valid_up_to; ) {
			u32 cp, k;

			utf8val_decode(c->bytes + at + i, r.valid_up_to - i, 0,
				       &cp, &k);
			got[ngot++] = cp;
			i += k;
		}
		at += r.valid_up_to;
		if (r.error) {
			got[ngot++] = 0xfffd;
			errs[nerrs++] = at;
			at += r.error_len;
		}
	}
	if (c->strip_bom && ngot && got[0] == 0xfeff)
		memmove(got, got + 1, --ngot * sizeof(u32));
	if (ngot != c->nchars || memcmp(got, c->chars, ngot * sizeof(u32))) {
		printf("# wakaba case at line %u: characters differ\n", line);
		ok = false;
	}
	if (nerrs != c->nerrors ||
	    memcmp(errs, c->errors, nerrs * sizeof(size_t))) {
		printf("# wakaba case at line %u: error offsets differ\n", line);
		ok = false;
	}

	/* The case's own chunks reach the verdict of one call. */
	utf8val_stream_init(&st, 0);
	for (size_t i = 0, from = 0; i < c->nchunks; from = c->cuts[i++])
		utf8val_stream_feed(&st, c->bytes + from, c->cuts[i] - from);
	utf8val_stream_result(&st, &streamed);
	utf8val_validate(c->bytes, c->nbytes, 0, &whole);
	if (memcmp(&streamed, &whole, sizeof(whole))) {
		printf("# wakaba case at line %u: chunked stream differs\n",
		       line);
		ok = false;
	}
	for (unsigned int f = 0; f <= UTF8VAL_FLAGS_ALL; f++)
		ok &= compare_all(c->bytes, c->nbytes, f,
				  CMP_STREAM_EVERY_SPLIT | CMP_DECODE, NULL);
	return ok;
}

static void test_wakaba(const char *dir, const char *name)
{
	char path[512], line[1024], section[16] = "";
	struct wakaba_case c;
	unsigned int cases = 0, skipped = 0, bad = 0, lineno = 0, start = 0;
	bool open = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/testdata/wakaba/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		tap_result(false, "wakaba %s: cannot read %s", name, path);
		return;
	}
	memset(&c, 0, sizeof(c));
	for (;;) {
		bool eof = !fgets(line, sizeof(line), f);

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (eof || !line[0]) {
			/* a blank line ends a case */
			if (open && c.nchunks) {
				if (c.skip)
					skipped++;
				else
					bad += !wakaba_check(&c, start);
				cases++;
			}
			memset(&c, 0, sizeof(c));
			open = false;
			if (eof)
				break;
			continue;
		}
		if (!open)
			start = lineno;
		open = true;
		if (line[0] == '#') {
			snprintf(section, sizeof(section), "%.15s", line + 1);
			section[strcspn(section, " ")] = '\0';
			if (!strcmp(section, "bc") && strstr(line, " bomsniffing"))
				c.skip = true;
			if (!strcmp(section, "bc") && !strcmp(line, "#bc bom"))
				c.strip_bom = true;
			continue;
		}
		if (!strcmp(section, "b")) {
			c.nbytes += unescape_bytes(line, c.bytes + c.nbytes);
			c.cuts[c.nchunks++] = c.nbytes;
		} else if (!strcmp(section, "c")) {
			c.nchars = unescape_chars(line, c.chars);
		} else if (!strcmp(section, "errors") && strstr(line, ";m;")) {
			/* malformed-input errors; 's' lines are signatures */
			c.errors[c.nerrors++] = strtoul(line, NULL, 10);
		}
	}
	fclose(f);
	tap_result(!bad && cases > 0,
		   "wakaba %s: %u cases (%u BOM-sniffing skipped), %u wrong",
		   name, cases, skipped, bad);
}

int main(void)
{
	const char *dir = shared_dir();

	if (!dir)
		return shared_missing("the shared test vectors", true);
	test_kuhn(dir);
	test_wakaba(dir, "utf8-1.dat");
	test_wakaba(dir, "utf8-2.dat");
	test_wakaba(dir, "utf8-3.dat");
	return tap_finish();
}
