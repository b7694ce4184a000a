// SPDX-License-Identifier: GPL-2.0
/*
 * The device's expected answers, from the reference: see dev_model.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev_model.h"

void model_restart(struct stream_model *m, unsigned int flags)
{
	m->len = 0;
	m->bytes = 0;
	m->flags = flags;
	m->read_pos = 0;
}

void model_free(struct stream_model *m)
{
	free(m->data);
	*m = (struct stream_model){ 0 };
}

static bool failed(const struct stream_model *m, struct utf8val_result *res)
{
	enum utf8val_error err = ref_validate(m->data, m->len, m->flags, res);

	return err != UTF8VAL_OK && err != UTF8VAL_EINCOMPLETE;
}

ssize_t model_write(struct stream_model *m, const u8 *buf, size_t readable,
		    size_t len)
{
	struct utf8val_result res;
	u64 start = m->len;

	m->read_pos = 0;
	if (failed(m, &res))
		return -EILSEQ;
	if (readable > len)
		readable = len;
	if (m->len + readable > m->cap) {
		m->cap = (m->len + readable) * 2 + 64;
		m->data = realloc(m->data, m->cap);
		if (!m->data)
			abort();
	}
	memcpy(m->data + m->len, buf, readable);
	m->len += readable;
	if (failed(m, &res)) {
		if (res.valid_up_to <= start)
			return -EILSEQ;
		m->bytes += res.valid_up_to - start;
		return res.valid_up_to - start;
	}
	if (readable == 0 && len)
		return -EFAULT;
	m->bytes += readable;
	return readable;
}

void model_verdict(const struct stream_model *m, struct utf8val_ioc_verdict *v)
{
	struct utf8val_result res, line_start;
	size_t point = m->len, bol = 0;
	u64 line = 1;

	if (failed(m, &res))
		point = res.valid_up_to;
	for (size_t i = 0; i < point; i++) {
		if (m->data[i] == '\n') {
			line++;
			bol = i + 1;
		}
	}
	ref_validate(m->data, bol, m->flags, &line_start);
	*v = (struct utf8val_ioc_verdict){
		.bytes = m->bytes,
		.valid_up_to = res.valid_up_to,
		.chars = res.chars,
		.error = res.error,
		.error_len = res.error_len,
		.flags = m->flags,
		.line = line,
		.column = res.chars - line_start.chars + 1,
	};
}

/*
 * The error names as utf8val(1) and Documentation/utf8val.rst list them,
 * written out here rather than taken from the module: they are ABI, and a
 * renamed one must show. (UTF8VAL_EFLAGS never reaches a verdict: the
 * ioctls refuse unknown flags.)
 */
const char *model_error_name(unsigned int error)
{
	switch (error) {
	case UTF8VAL_EINCOMPLETE:
		return "incomplete";
	case UTF8VAL_ECONTINUATION:
		return "continuation";
	case UTF8VAL_EBADBYTE:
		return "bad-byte";
	case UTF8VAL_ESHORT:
		return "short";
	case UTF8VAL_EOVERLONG:
		return "overlong";
	case UTF8VAL_ESURROGATE:
		return "surrogate";
	case UTF8VAL_ETOOLARGE:
		return "too-large";
	case UTF8VAL_ENUL:
		return "nul";
	case UTF8VAL_ENONCHAR:
		return "noncharacter";
	case UTF8VAL_EBOM:
		return "bom";
	default:
		return "unknown";
	}
}

/*
 * The read() line, field by field as utf8val(4) gives its form (not as
 * the module prints it: the two are written independently): the
 * verdict and the counts; for an error, where it is; for a bad sequence,
 * its name; for an error, its line and column.
 */
int model_line(const struct stream_model *m, char *buf, size_t size)
{
	struct utf8val_ioc_verdict v;
	char where[64] = "", name[32] = "", place[64] = "";
	const char *verdict = "invalid";

	model_verdict(m, &v);
	if (v.error == UTF8VAL_OK)
		verdict = "valid";
	else if (v.error == UTF8VAL_EINCOMPLETE)
		verdict = "incomplete";
	else
		snprintf(name, sizeof(name), " error=%s", model_error_name(v.error));
	if (v.error != UTF8VAL_OK) {
		snprintf(where, sizeof(where), " offset=%llu len=%u",
			 v.valid_up_to, v.error_len);
		snprintf(place, sizeof(place), " line=%llu column=%llu",
			 v.line, v.column);
	}
	return snprintf(buf, size, "%s bytes=%llu chars=%llu%s%s%s\n",
			verdict, v.bytes, v.chars, where, name, place);
}

static char mismatch_text[128];

static bool differ(const char *field, u64 want, u64 got)
{
	if (want == got)
		return false;
	snprintf(mismatch_text, sizeof(mismatch_text),
		 "%s: want %llu, got %llu", field, (unsigned long long)want,
		 (unsigned long long)got);
	return true;
}

const char *verdict_mismatch(const struct utf8val_ioc_verdict *want,
			     const struct utf8val_ioc_verdict *got)
{
	if (differ("bytes", want->bytes, got->bytes) ||
	    differ("valid_up_to", want->valid_up_to, got->valid_up_to) ||
	    differ("chars", want->chars, got->chars) ||
	    differ("error", want->error, got->error) ||
	    differ("error_len", want->error_len, got->error_len) ||
	    differ("flags", want->flags, got->flags) ||
	    differ("line", want->line, got->line) ||
	    differ("column", want->column, got->column) ||
	    differ("reserved", want->reserved, got->reserved))
		return mismatch_text;
	return NULL;
}

long long sysfs_value(const char *name)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), SYSFS_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtoll(buf, NULL, 10);
}

int simd_paths(char names[][16], int max)
{
	char line[256], *word, *save = NULL;
	FILE *f = fopen(SYSFS_DIR "simd_paths", "r");
	int n = 0;

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	for (word = strtok_r(line, " ", &save); word && n < max;
	     word = strtok_r(NULL, " ", &save))
		snprintf(names[n++], sizeof(names[0]), "%s", word);
	return n;
}

size_t random_input(u64 *rng, u8 *buf, size_t max)
{
	static const u8 edges[] = { 0x00, 0x0a, 0x41, 0x7f, 0x80, 0x8f, 0x90,
				    0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0,
				    0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xf8, 0xfc,
				    0xff };
	size_t len = xorshift(rng) % 4 ? xorshift(rng) % 24 :
					 xorshift(rng) % max;

	for (size_t i = 0; i < len; ) {
		switch (xorshift(rng) % 4) {
		case 0:
			buf[i++] = edges[xorshift(rng) % sizeof(edges)];
			break;
		case 1:
			buf[i++] = xorshift(rng);
			break;
		default:
			if (i + 6 <= len)
				i += ref_encode(xorshift(rng) %
						(xorshift(rng) % 2 ? 0x110000 :
						 0x80000000u), buf + i);
			else
				buf[i++] = 'a';
		}
	}
	return len;
}
