// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val's BPF kfuncs against the reference validator (TAP), in a guest:
 *  - a syscall program calls bpf_utf8val_check() and
 *    bpf_utf8val_validate() on buffers user space fills, run with
 *    BPF_PROG_RUN: random and long inputs (long enough for the vector
 *    paths), under every combination of flags and unknown bits; each
 *    answer must be the reference's;
 *  - LSM, fentry and tp_btf programs may call them;
 *  - the verifier refuses a size past the buffer, a size it cannot
 *    bound, a result too small, a pointer that is not memory, and a
 *    program type they are not offered to; a buffer that may be NULL is
 *    refused by the verifier (6.12) or by the kfuncs (6.1).
 * Usage: kfuncs_test [ITERATIONS]   (default 20000 calls)
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../dev_model.h"
#include "kfuncs.h"
#include "kfuncs.skel.h"

static char libbpf_log[1 << 16];
static size_t libbpf_log_len;

/* libbpf's messages (the verifier's log among them), kept for failures */
static int keep_log(enum libbpf_print_level level, const char *fmt, va_list args)
{
	int n;

	if (level == LIBBPF_DEBUG || libbpf_log_len >= sizeof(libbpf_log) - 1)
		return 0;
	n = vsnprintf(libbpf_log + libbpf_log_len,
		      sizeof(libbpf_log) - libbpf_log_len, fmt, args);
	if (n > 0)
		libbpf_log_len += n;
	if (libbpf_log_len > sizeof(libbpf_log) - 1)
		libbpf_log_len = sizeof(libbpf_log) - 1;
	return 0;
}

static void show_log(void)
{
	char *line, *save;
	int n = 0;

	for (line = strtok_r(libbpf_log, "\n", &save); line && n++ < 40;
	     line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
}

/* Load only the program @name of the object; the load's error, or 0. */
static int load_only(const char *name)
{
	struct kfuncs_bpf *skel = kfuncs_bpf__open();
	struct bpf_program *prog;
	int err;

	if (!skel)
		return -errno;
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), name));
	libbpf_log_len = 0;
	libbpf_log[0] = '\0';
	err = kfuncs_bpf__load(skel);
	kfuncs_bpf__destroy(skel);
	return err;
}

/* Valid strict UTF-8 of about @len bytes, maybe with one byte spoiled. */
static size_t long_input(u64 *rng, u8 *buf, size_t len)
{
	size_t n = 0;
	u32 cp;

	while (n + 4 <= len) {
		switch (xorshift(rng) % 4) {
		case 0:
			cp = 0x20 + xorshift(rng) % 0x5f;
			break;
		case 1:
			cp = 0x80 + xorshift(rng) % 0x780;
			break;
		case 2:
			cp = 0x800 + xorshift(rng) % 0xf800;
			if (cp >= 0xd800 && cp <= 0xdfff)
				cp = 0x4e00;
			break;
		default:
			cp = 0x10000 + xorshift(rng) % 0x100000;
		}
		/* mostly ASCII runs, as text has them */
		if (xorshift(rng) % 2)
			cp = 'a' + xorshift(rng) % 26;
		n += ref_encode(cp, buf + n);
	}
	if (n && xorshift(rng) % 2)
		buf[xorshift(rng) % n] = xorshift(rng);
	return n;
}

static bool same(const struct kfuncs_call *c, enum utf8val_error want,
		 const struct utf8val_result *res, bool strict_valid)
{
	return c->check == strict_valid && c->ret == (int)want &&
	       c->res.error == res->error &&
	       (want == UTF8VAL_EFLAGS ||
		(c->res.valid_up_to == res->valid_up_to &&
		 c->res.chars == res->chars && c->res.error_len == res->error_len));
}

static void differential(struct kfuncs_bpf *skel, unsigned int iterations)
{
	struct kfuncs_call *c = &skel->bss->call;
	int fd = bpf_program__fd(skel->progs.run);
	unsigned int i, wrong = 0, longs = 0, errors = 0;
	u64 rng = 0x5eed0f0cu;

	for (i = 0; i < iterations && wrong < 5; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts);
		struct utf8val_result want_res, strict_res;
		enum utf8val_error want;
		bool strict_valid;
		size_t len;

		if (i % 16 == 0) {
			len = long_input(&rng, c->buf, 4096 + xorshift(&rng) %
					 (KFUNCS_BUF_SIZE - 4096));
			longs++;
		} else {
			len = random_input(&rng, c->buf, 512);
		}
		c->len = len;
		/* every combination of the flags, and now and then an unknown bit */
		c->flags = xorshift(&rng) % (UTF8VAL_FLAGS_ALL + 1);
		if (i % 64 == 1)
			c->flags |= 1u << (5 + xorshift(&rng) % 27);
		c->check = -1;
		c->ret = -1;
		memset(&c->res, 0xa5, sizeof(c->res));
		if (bpf_prog_test_run_opts(fd, &opts) || opts.retval) {
			printf("# BPF_PROG_RUN: %s, retval %d\n", strerror(errno), opts.retval);
			wrong++;
			continue;
		}
		if (c->flags & ~UTF8VAL_FLAGS_ALL) {
			want = UTF8VAL_EFLAGS;
			want_res.error = UTF8VAL_EFLAGS;
		} else {
			want = ref_validate(c->buf, len, c->flags, &want_res);
		}
		strict_valid = ref_validate(c->buf, len, 0, &strict_res) == UTF8VAL_OK;
		errors += want != UTF8VAL_OK;
		if (!same(c, want, &want_res, strict_valid)) {
			printf("# %zu bytes, flags %#x: check %d ret %d (%llu, %llu, %u, %u)\n",
			       len, c->flags, c->check, c->ret, c->res.valid_up_to,
			       c->res.chars, c->res.error, c->res.error_len);
			printf("# reference: check %d ret %d (%llu, %llu, %u, %u)\n",
			       strict_valid, want, want_res.valid_up_to,
			       want_res.chars, want_res.error, want_res.error_len);
			wrong++;
		}
	}
	tap_result(!wrong && i == iterations,
		   "%u calls from a syscall program (%u of 4 KiB to 64 KiB, %u errors) answer as the reference does, under every flag",
		   i, longs, errors);
}

/* A buffer that may be NULL: refused by the verifier, or at run time. */
static void maybe_null(void)
{
	struct kfuncs_bpf *skel = kfuncs_bpf__open();
	struct bpf_program *prog;
	int err;

	if (!skel) {
		tap_result(false, "a buffer that may be NULL: open the object");
		return;
	}
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == skel->progs.maybe_null);
	libbpf_log_len = 0;
	libbpf_log[0] = '\0';
	err = kfuncs_bpf__load(skel);
	if (err) {
		tap_result(strstr(libbpf_log, "-- END PROG LOAD LOG --"),
			   "the verifier refuses a buffer that may be NULL");
	} else {
		LIBBPF_OPTS(bpf_test_run_opts, opts);

		skel->bss->call.check = -1;
		skel->bss->call.ret = 0;
		err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.maybe_null), &opts);
		tap_result(!err && skel->bss->call.check == 0 && skel->bss->call.ret == -EINVAL,
			   "a NULL buffer the verifier lets through is refused at run time (check %d, validate %d)",
			   skel->bss->call.check, skel->bss->call.ret);
	}
	kfuncs_bpf__destroy(skel);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *prog, *what;
	} allowed[] = {
		{ "lsm_calls", "an LSM program" },
		{ "fentry_calls", "an fentry program" },
		{ "tp_btf_calls", "a tp_btf program" },
	}, refused[] = {
		{ "bad_size", "a size past the end of the buffer" },
		{ "unbounded_size", "a size the verifier cannot bound" },
		{ "small_result", "a result that runs past the end of its memory" },
		{ "not_memory", "a pointer that is not memory" },
		{ "xdp_calls", "an XDP program (not offered)" },
	};
	unsigned int iterations = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000;
	struct kfuncs_bpf *skel;
	unsigned int i;
	int err;

	printf("TAP version 13\n");
	if (access("/sys/kernel/btf/utf8val", F_OK)) {
		tap_result(true, "the kfuncs # SKIP utf8val.ko has no BTF, so no kfuncs, here");
		return tap_finish();
	}
	libbpf_set_print(keep_log);

	skel = kfuncs_bpf__open();
	if (skel) {
		struct bpf_program *prog;

		bpf_object__for_each_program(prog, skel->obj)
			bpf_program__set_autoload(prog, prog == skel->progs.run);
	}
	err = skel ? kfuncs_bpf__load(skel) : -errno;
	tap_result(!err, "a syscall program that calls both kfuncs loads (%s)",
		   err ? strerror(-err) : "loaded");
	if (err)
		show_log();
	else
		differential(skel, iterations);
	kfuncs_bpf__destroy(skel);

	for (i = 0; i < ARRAY_SIZE(allowed); i++) {
		err = load_only(allowed[i].prog);
		tap_result(!err, "%s may call them", allowed[i].what);
		if (err)
			show_log();
	}
	maybe_null();
	/* refused by the verifier, not by libbpf before it */
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		err = load_only(refused[i].prog);
		tap_result(err && strstr(libbpf_log, "-- END PROG LOAD LOG --"),
			   "the verifier refuses %s", refused[i].what);
		if (!err || !strstr(libbpf_log, "-- END PROG LOAD LOG --"))
			show_log();
	}
	return tap_finish();
}
