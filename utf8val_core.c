// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * utf8val core: UTF-8 validation as RFC 3629 section 4 defines it.
 *
 * Freestanding: no libc, no kernel headers beyond the types shim, so the
 * same source builds into the module and into the user-space tests,
 * fuzzers and benchmarks.
 *
 * Two machines share the work:
 *
 * - The fast path answers "valid up to where?" for the modes that fit a
 *   shift-based DFA (strict, and strict plus surrogates). Each byte costs
 *   a table load and one shift; four independent lanes over the quarters
 *   of a long buffer keep the CPU busy, and 32-byte blocks of ASCII cost
 *   four word loads. It can count characters on the way (two passes
 *   would read the data twice). It never classifies errors: it stops at
 *   a character boundary at or before the first one.
 * - The exact path decides everything the caller sees about an error
 *   (offset, kind, maximal subpart), runs the modes the DFA does not cover
 *   (RFC 2279, policy flags) and carries sequences across stream chunks.
 *
 * Documentation/utf8val.rst describes the contract.
 */

#include "utf8val.h"
#include "utf8val_lines.h"
#include "utf8val_simd.h"

#define HIGH_BITS	0x8080808080808080ull
#define LOW_BITS	0x0101010101010101ull
#define REPLACEMENT_CHAR 0xfffd

static inline u64 load64(const u8 *p)
{
	u64 w;

	__builtin_memcpy(&w, p, sizeof(w));
	return w;
}

/* The same at an 8-byte boundary: one load where unaligned ones are slow */
static inline u64 load64_aligned(const u8 *p)
{
	typedef u64 __attribute__((may_alias)) word;

	return *(const word *)p;
}

static inline bool is_cont(u8 b)
{
	return (b & 0xc0) == 0x80;
}

/*
 * The fast path's DFA. A state is a bit offset into a 64-bit table row:
 * next = row[byte] >> state, keeping the low 6 bits. The error state is 0,
 * so every transition a row leaves unset fails safe, and it is a sink.
 */
enum dfa_state {
	S_ERR = 0,
	S_ACC = 6,	/* at a character boundary */
	S_C1 = 12,	/* one more 80..BF */
	S_C2 = 18,	/* two more 80..BF */
	S_C3 = 24,	/* three more 80..BF */
	S_E0 = 30,	/* after E0: A0..BF, then one more */
	S_ED = 36,	/* after ED: 80..9F, then one more */
	S_F0 = 42,	/* after F0: 90..BF, then two more */
	S_F4 = 48,	/* after F4: 80..8F, then two more */
};

#define STATE_MASK	63
#define NX(from, to)	((u64)(to) << (from))
#define ROW_ASCII	NX(S_ACC, S_ACC)
#define ROW_TAIL	(NX(S_C1, S_ACC) | NX(S_C2, S_C1) | NX(S_C3, S_C2))
#define ROW_80_8F	(ROW_TAIL | NX(S_ED, S_C1) | NX(S_F4, S_C2))
#define ROW_90_9F	(ROW_TAIL | NX(S_ED, S_C1) | NX(S_F0, S_C2))
#define ROW_A0_BF	(ROW_TAIL | NX(S_E0, S_C1) | NX(S_F0, S_C2))
#define ROW_LEAD(to)	NX(S_ACC, to)

/* The RFC 3629 ABNF; C0, C1 and F5..FF stay zero: errors in every state. */
#define DFA_TABLE(ed_state) {				\
	[0x00 ... 0x7f] = ROW_ASCII,			\
	[0x80 ... 0x8f] = ROW_80_8F,			\
	[0x90 ... 0x9f] = ROW_90_9F,			\
	[0xa0 ... 0xbf] = ROW_A0_BF,			\
	[0xc2 ... 0xdf] = ROW_LEAD(S_C1),		\
	[0xe0] = ROW_LEAD(S_E0),			\
	[0xe1 ... 0xec] = ROW_LEAD(S_C2),		\
	[0xed] = ROW_LEAD(ed_state),			\
	[0xee ... 0xef] = ROW_LEAD(S_C2),		\
	[0xf0] = ROW_LEAD(S_F0),			\
	[0xf1 ... 0xf3] = ROW_LEAD(S_C3),		\
	[0xf4] = ROW_LEAD(S_F4),			\
}

static const u64 dfa_strict[256] = DFA_TABLE(S_ED);
/* With UTF8VAL_SURROGATES, ED takes any two continuation bytes. */
static const u64 dfa_surrogates[256] = DFA_TABLE(S_C2);

/* The flags that refuse some of what strict RFC 3629 accepts. */
#define POLICY_FLAGS	(UTF8VAL_REJECT_NUL | UTF8VAL_REJECT_NONCHAR | \
			 UTF8VAL_REJECT_BOM)

/*
 * The DFA covers strict RFC 3629 and strict plus surrogates; the policy
 * flags only refuse some of what those accept, which policy_prefix()
 * finds in the DFA's valid prefix. RFC 2279 takes the exact path.
 */
static const u64 *dfa_table(unsigned int flags)
{
	flags &= ~POLICY_FLAGS;
	if (!flags)
		return dfa_strict;
	if (flags == UTF8VAL_SURROGATES)
		return dfa_surrogates;
	return NULL;
}

#define DFA_BLOCK	32	/* bytes a lane takes per step */
#define DFA_LANES	4
/* Shorter buffers take one lane. Measured at 256 bytes (make bench), one
 * lane beat four by 1.3-1.9x on ASCII and prose, and tied on the rest.
 */
#define DFA_SPLIT_MIN	(4 * DFA_LANES * DFA_BLOCK)
/* Lockstep rounds between error checks; an error costs the exact path at
 * most this many blocks of rescanning, a valid buffer nothing.
 */
#define DFA_CHECK_ROUNDS 8

/*
 * Whether the scalar path's words are loaded from 8-byte boundaries: a
 * lane's blocks and the ASCII words after them, and those of
 * ascii_prefix() and short_words_ascii(). Where the
 * compiler takes unaligned loads for slow (RISC-V, unless told they are
 * fast), it reads an unaligned word a byte at a time, 17 instructions: on
 * riscv64 the scalar path took 2.4 instructions a byte of ASCII, and 0.41
 * with the blocks aligned. Elsewhere unaligned words load as fast, and
 * the steps to the boundary cost an input of 512 bytes up to a quarter
 * more time (on an AMD Zen 4). A test build may set it on any CPU
 * (-DWORDS_ALIGNED=1, the Makefile's aligned variant), where UBSan checks
 * that the loads it calls aligned are: RISC-V's emulator runs them
 * unaligned without a fault.
 */
#ifndef WORDS_ALIGNED
#if defined(__riscv) && !defined(__riscv_misaligned_fast)
#define WORDS_ALIGNED	true
#else
#define WORDS_ALIGNED	false
#endif
#endif

/* @i less the bytes by which @s + @i is past an 8-byte boundary */
static inline size_t word_down(const u8 *s, size_t i)
{
	return i - ((unsigned long)(s + i) & 7);
}

/* @i plus the bytes from @s + @i to the next 8-byte boundary */
static inline size_t word_up(const u8 *s, size_t i)
{
	return i + (-(unsigned long)(s + i) & 7);
}

/* The word at @p, on an 8-byte boundary where WORDS_ALIGNED */
static inline u64 word_at(const u8 *p)
{
	return WORDS_ALIGNED ? load64_aligned(p) : load64(p);
}

/* Where a lane's blocks start, for a lane aimed at @i */
static inline size_t lane_aim(const u8 *s, size_t i)
{
	return WORDS_ALIGNED ? word_down(s, i) : i;
}

/* 1 in each byte lane of @w that holds a continuation byte (10xxxxxx). */
static inline u64 cont_lanes(u64 w)
{
	return ((w & ~(w << 1)) & HIGH_BITS) >> 7;
}

/*
 * One lane step: DFA_BLOCK bytes, counting characters into @chars unless
 * it is NULL. An ASCII block leaves a lane at a boundary where it was and
 * fails one inside a character. Testing the bytes before the state keeps
 * the branch predictable on mixed text, where the state at block edges
 * is random. Where WORDS_ALIGNED, @p is on an 8-byte boundary.
 */
static __always_inline u64 dfa_block(const u64 *tbl, const u8 *p, u64 s,
				     u64 *chars)
{
	const u64 w0 = word_at(p), w1 = word_at(p + 8);
	const u64 w2 = word_at(p + 16), w3 = word_at(p + 24);
	unsigned int i;

	if (!((w0 | w1 | w2 | w3) & HIGH_BITS)) {
		if (chars)
			*chars += DFA_BLOCK;
		return (s & STATE_MASK) == S_ACC ? s : S_ERR;
	}
	/*
	 * Count while the words are in registers, not across the DFA. At
	 * most 4 per byte lane: the byte sum in the multiply cannot carry.
	 */
	if (chars)
		*chars += DFA_BLOCK - (((cont_lanes(w0) + cont_lanes(w1) +
					 cont_lanes(w2) + cont_lanes(w3)) *
					LOW_BITS) >> 56);
#pragma GCC unroll 32
	for (i = 0; i < DFA_BLOCK; i++)
		s = tbl[p[i]] >> (s & STATE_MASK);
	return s;
}

/*
 * The DFA went wrong somewhere at or after @at, and [@lo, @at) is a valid
 * prefix (possibly ending inside a character). Return the start of the
 * character that contains or precedes @at: no error lies before it, and
 * the exact path can start there at a boundary.
 */
static size_t rewind_to_boundary(const u8 *s, size_t lo, size_t at)
{
	size_t stop = at - lo > 4 ? at - 4 : lo;

	while (at > stop) {
		at--;
		if (!is_cont(s[at]))
			return at;
	}
	return lo;
}

/*
 * *@chars counted the characters started up to @at; the caller stops at
 * the boundary @to <= @at instead. Unless @chars is NULL, take off the
 * characters started in between, and return @to.
 */
static __always_inline size_t uncount(const u8 *s, size_t to, size_t at,
				      u64 *chars)
{
	if (chars)
		*chars -= utf8val_count(s + to, at - to);
	return to;
}

/*
 * @state stepped over @s[@i, @end), a byte a step, with the characters
 * that start there added to *@chars unless it is NULL.
 */
static __always_inline u64 dfa_steps(const u64 *tbl, const u8 *s, size_t i,
				     size_t end, u64 state, u64 *chars)
{
	for (; i < end; i++) {
		state = tbl[s[i]] >> (state & STATE_MASK);
		if (chars)
			*chars += !is_cont(s[i]);
	}
	return state;
}

/*
 * One lane from @i to @end, in state @state, over a lane that started at
 * the boundary @lo. Returns @end if everything is valid and complete,
 * otherwise a character boundary at or before the first error; adds to
 * @chars the characters before the returned point.
 */
static __always_inline size_t dfa_lane(const u64 *tbl, const u8 *s, size_t lo,
				       size_t i, size_t end, u64 state,
				       u64 *chars)
{
	size_t tail;

	/* with WORDS_ALIGNED, words from a boundary: the bytes to it first */
	if (WORDS_ALIGNED && end - i >= 8) {
		const size_t from = i;

		i = word_up(s, i);
		state = dfa_steps(tbl, s, from, i, state, chars);
		if (!(state & STATE_MASK))
			return uncount(s, rewind_to_boundary(s, lo, from), i,
				       chars);
	}
	/* a block counts all its character starts, valid or not */
	while (end - i >= DFA_BLOCK) {
		u64 next = dfa_block(tbl, s + i, state, chars);

		if (!(next & STATE_MASK))
			return uncount(s, rewind_to_boundary(s, lo, i),
				       i + DFA_BLOCK, chars);
		state = next;
		i += DFA_BLOCK;
	}
	tail = i;
	if ((state & STATE_MASK) == S_ACC)
		while (end - i >= 8 && !(word_at(s + i) & HIGH_BITS))
			i += 8;
	if (chars)
		*chars += i - tail;
	state = dfa_steps(tbl, s, i, end, state, chars);
	if ((state & STATE_MASK) != S_ACC)
		return uncount(s, rewind_to_boundary(s, lo, tail), end, chars);
	return end;
}

/*
 * The start of the character that holds @s[@t], looking at most 3 bytes
 * back: where a lane begins. In valid text it is a lead byte; if it is a
 * continuation byte, four of them run there and the text is not valid.
 */
static __always_inline size_t lane_bound(const u8 *s, size_t t)
{
	unsigned int n;

	for (n = 0; n < 3 && is_cont(s[t]); n++)
		t--;
	return t;
}

/*
 * Whether a lane that ran without an error to @at, in @state, is whole
 * where the next one starts, @end, when no lane failed: the lane past
 * @end (see dfa_lanes(); by up to 59 bytes) with its characters there
 * taken back from *@count, or, a word apart at most, the bytes between
 * them taken a step each. The next lane did not fail on its first byte,
 * so that is no continuation byte. False if not whole, or if a gap is
 * wider: then dfa_lanes() looks again, the general way.
 */
static __always_inline bool lane_seam(const u64 *tbl, const u8 *s, size_t at,
				      size_t end, u64 state, u64 *count)
{
	if (at > end) {
		*count -= utf8val_count(s + end, at - end);
		return true;
	}
	if (end - at > 8)
		return false;
	state = dfa_steps(tbl, s, at, end, state, count);
	return (state & STATE_MASK) == S_ACC;
}

/*
 * dfa_prefix() on a buffer of DFA_SPLIT_MIN bytes or more, cut into
 * DFA_LANES lanes at lead bytes. Valid UTF-8 starts a character at every
 * lead byte, so the whole is valid exactly when every lane is. The lanes
 * advance in lockstep so that their dependency chains overlap; when one
 * fails, the lanes before it finish alone, because the first error may
 * still lie in one of them.
 *
 * Every lane takes the same number of blocks, enough for the four to
 * cover the buffer (with WORDS_ALIGNED from an 8-byte boundary, the few
 * bytes before it stepped first). Their starts are spread so that
 * between the end of one and the start of the next at most 8 bytes are
 * left, which a step each finishes. A stream's chunk is often a few bytes
 * short of 4 KiB; lanes cut short to whole blocks left each a tail of up
 * to a block to finish a byte at a time, which cost the chunk more than
 * its lockstep's last rounds. Instead a lane may run into the next one
 * (by less than half a round). It then passes that one's first
 * byte: if that is not a continuation byte, the DFA was at a boundary
 * just before it (any other byte fails inside a character), so the lane
 * is whole there, and the characters it counted beyond are taken back.
 */
static __always_inline size_t dfa_lanes(const u64 *tbl, const u8 *s,
					size_t len, u64 *chars)
{
	const size_t round = DFA_LANES * DFA_BLOCK;
	const size_t span = (len + round - 1) / round * DFA_BLOCK;
	const size_t step = (len - span) / (DFA_LANES - 1);
	size_t bound[DFA_LANES + 1], off, k, checked = 0, done = len;
	u64 count = 0, *cnt = chars ? &count : NULL;
	u64 st[DFA_LANES], s0, s1, s2, s3;
	const u8 *p0, *p1, *p2, *p3, *lane[DFA_LANES];
	bool failed = false;

	/*
	 * The lanes a third of the rest apart, each from at most 3 bytes
	 * back, to a lead; with WORDS_ALIGNED, from there to its blocks' start
	 * (the first's, the first word boundary in).
	 */
	bound[0] = 0;
	bound[1] = lane_bound(s, lane_aim(s, step));
	bound[2] = lane_bound(s, lane_aim(s, 2 * step));
	bound[3] = lane_bound(s, lane_aim(s, len - span));
	bound[DFA_LANES] = len;

	/* Named lanes, so that the compiler keeps them in registers. */
	p0 = s + (WORDS_ALIGNED ? word_down(s, 7) : bound[0]);
	p1 = s + (WORDS_ALIGNED ? lane_aim(s, step) : bound[1]);
	p2 = s + (WORDS_ALIGNED ? lane_aim(s, 2 * step) : bound[2]);
	p3 = s + (WORDS_ALIGNED ? lane_aim(s, len - span) : bound[3]);
	s0 = S_ACC;
	s1 = S_ACC;
	s2 = S_ACC;
	s3 = S_ACC;
	if (WORDS_ALIGNED) {
		s0 = dfa_steps(tbl, s, bound[0], p0 - s, s0, cnt);
		s1 = dfa_steps(tbl, s, bound[1], p1 - s, s1, cnt);
		s2 = dfa_steps(tbl, s, bound[2], p2 - s, s2, cnt);
		s3 = dfa_steps(tbl, s, bound[3], p3 - s, s3, cnt);
		/* an error there: the first may be before, in any lane */
		if (!(s0 & STATE_MASK) || !(s1 & STATE_MASK) ||
		    !(s2 & STATE_MASK) || !(s3 & STATE_MASK)) {
			if (chars)
				*chars = 0;
			return dfa_lane(tbl, s, 0, 0, len, S_ACC, chars);
		}
	}
	/*
	 * Rounds in runs between error checks, each run its own loop: one
	 * loop that tested for a check every round mispredicted its end,
	 * which cost a 4 KiB chunk as much as its last rounds.
	 */
	for (off = 0; off < span; ) {
		const size_t stop = span - off > DFA_CHECK_ROUNDS * DFA_BLOCK ?
				    off + DFA_CHECK_ROUNDS * DFA_BLOCK : span;

		do {
			s0 = dfa_block(tbl, p0 + off, s0, cnt);
			s1 = dfa_block(tbl, p1 + off, s1, cnt);
			s2 = dfa_block(tbl, p2 + off, s2, cnt);
			s3 = dfa_block(tbl, p3 + off, s3, cnt);
			off += DFA_BLOCK;
		} while (off < stop);
		if (!(s0 & STATE_MASK) || !(s1 & STATE_MASK) ||
		    !(s2 & STATE_MASK) || !(s3 & STATE_MASK)) {
			failed = true;
			break;
		}
		checked = off;
	}
	/* The common case, all valid: the lanes' ends alone. */
	if (!failed) {
		u64 total = count;

		if (lane_seam(tbl, s, p0 - s + span, bound[1], s0, &total) &&
		    lane_seam(tbl, s, p1 - s + span, bound[2], s1, &total) &&
		    lane_seam(tbl, s, p2 - s + span, bound[3], s2, &total) &&
		    lane_seam(tbl, s, p3 - s + span, len, s3, &total)) {
			if (chars)
				*chars = total;
			return len;
		}
	}
	st[0] = s0;
	st[1] = s1;
	st[2] = s2;
	st[3] = s3;
	lane[0] = p0;
	lane[1] = p1;
	lane[2] = p2;
	lane[3] = p3;

	/*
	 * Lanes are valid up to their blocks' start + checked; those that did
	 * not fail, up to that + off. The first error may be in any lane
	 * before a failed one, so finish them in order.
	 */
	for (k = 0; k < DFA_LANES; k++) {
		const size_t blocks = lane[k] - s;
		const size_t at = blocks + off, end = bound[k + 1];

		if (failed && !(st[k] & STATE_MASK)) {
			done = uncount(s, rewind_to_boundary(s, bound[k],
							     blocks + checked),
				       at, cnt);
			break;
		}
		if (at <= end) {
			done = dfa_lane(tbl, s, bound[k], at, end, st[k], cnt);
			if (done != end)
				break;
			continue;
		}
		/* past the next lane's start: whole there, or an error near */
		if (is_cont(s[end])) {
			done = uncount(s, rewind_to_boundary(s, bound[k], at),
				       at, cnt);
			break;
		}
		if (cnt)
			count -= utf8val_count(s + end, at - end);
	}
	/* Lanes after the one that stopped are not part of the prefix. */
	while (chars && ++k < DFA_LANES)
		count -= utf8val_count(s + bound[k],
				       lane[k] + off - (s + bound[k]));
	if (chars)
		*chars = count;
	return done;
}

/* Out of line, so that short inputs do not pay for the lanes' registers. */
static noinline size_t dfa_lanes_counting(const u64 *tbl, const u8 *s,
					  size_t len, u64 *chars)
{
	u64 count;
	/* a local that is known to exist: the count stays in a register */
	size_t n = dfa_lanes(tbl, s, len, &count);

	*chars = count;
	return n;
}

static noinline size_t dfa_lanes_checking(const u64 *tbl, const u8 *s,
					  size_t len)
{
	return dfa_lanes(tbl, s, len, NULL);
}

/*
 * How much of @s is valid, as a character boundary: @len if all of it,
 * otherwise a boundary before the first error (or before an incomplete
 * tail) where the exact path takes over. Unless @chars is NULL,
 * *@chars receives the number of characters before the returned point,
 * so that an error costs no second pass to count them.
 */
static __always_inline size_t dfa_prefix(const u64 *tbl, const u8 *s,
					 size_t len, u64 *chars)
{
	if (len >= DFA_SPLIT_MIN)
		return chars ? dfa_lanes_counting(tbl, s, len, chars) :
			       dfa_lanes_checking(tbl, s, len);
	if (chars)
		*chars = 0;
	return dfa_lane(tbl, s, 0, 0, len, S_ACC, chars);
}

/* The vector paths this build has: its architecture's (utf8val_simd.h). */
static const struct utf8val_simd_impl simd_impls[NR_UTF8VAL_PATHS] = {
	[UTF8VAL_PATH_SCALAR] = { "scalar" },
	UTF8VAL_ARCH_IMPLS
};

/* The names utf8val.simd= takes. */
const char *utf8val_path_name(enum utf8val_path path)
{
	if (path >= NR_UTF8VAL_PATHS || !simd_impls[path].name)
		return "unknown";
	return simd_impls[path].name;
}

/*
 * The vector fast path, strict mode only: 64-byte blocks in FPU sections
 * of SIMD_SECTION bytes, so that preemption is never off for long, the
 * tail as one more block overlapping the last. Where the vector code
 * stops short, at an error, the DFA takes over from the start of the
 * character before it, and the exact path classifies the error.
 */
#define SIMD_SECTION	(16 * 1024)

/*
 * The one word that says which path runs, read once per call
 * (call_path()):
 * utf8val.simd= may change it at any time, and every value is whole.
 */
static enum utf8val_path simd_path;

/* The paths this CPU has, a bit each; CPUID traps in a VM, so ask once. */
static unsigned int cpu_paths(void)
{
	static unsigned int paths;	/* racing callers store the same value */
	unsigned int has = utf8val_read_once(paths);

	if (!has) {
		has = 1u << UTF8VAL_PATH_SCALAR | utf8val_arch_paths();
		utf8val_write_once(paths, has);
	}
	return has;
}

/*
 * The choice of path, for every architecture: "auto" (any @path outside
 * the enum) takes the one the architecture prefers among those the CPU
 * has; a path the CPU lacks falls back to the scalar one.
 */
enum utf8val_path utf8val_simd_select(int path)
{
	unsigned int has = cpu_paths();

	if (path < 0 || path >= NR_UTF8VAL_PATHS)
		path = utf8val_arch_auto(has);
	if (!(has & 1u << path) || !simd_impls[path].blocks)
		path = UTF8VAL_PATH_SCALAR;
	utf8val_write_once(simd_path, (enum utf8val_path)path);
	return path;
}

enum utf8val_path utf8val_simd_path(void)
{
	return utf8val_read_once(simd_path);
}

#ifndef __KERNEL__
/* User space chooses when the library loads; the module, at init. */
__attribute__((constructor)) static void simd_select_best(void)
{
	utf8val_simd_select(-1);
}
#endif

/*
 * The vector code stopped at @at, where *@chars ends: the DFA takes over
 * from the start of the character there.
 */
static size_t simd_stopped(const u8 *s, size_t at, u64 *chars)
{
	size_t done = rewind_to_boundary(s, 0, at);

	if (chars)
		*chars -= utf8val_count(s + done, at - done);
	return done;
}

/* Inputs longer than a section: one FPU section per SIMD_SECTION bytes. */
static noinline size_t simd_sections(utf8val_blocks_fn blocks, const u8 *s,
				     size_t len, u64 *chars)
{
	size_t done = 0, to, at = 0;

	UTF8VAL_SIMD_SAVE_AREA;
	while (done < len) {
		to = len - done > SIMD_SECTION ? done + SIMD_SECTION : len;
		utf8val_simd_begin();
		at = blocks(s, done, to, to == len, chars);
		utf8val_simd_end();
		if (at == len)
			return len;
		if (at != to)
			break;
		done = at;
	}
	return simd_stopped(s, at, chars);
}

/* The valid prefix the vector code finds; the common short case inline. */
static __always_inline size_t simd_prefix(utf8val_blocks_fn blocks,
					  const u8 *s, size_t len, u64 *chars)
{
	size_t at;

	UTF8VAL_SIMD_SAVE_AREA;
	/* (a save area goes out of line, not into every caller's frame) */
	if (len > SIMD_SECTION || UTF8VAL_SIMD_SAVE_AREA_SIZE)
		return simd_sections(blocks, s, len, chars);
	utf8val_simd_begin();
	at = blocks(s, 0, len, true, chars);
	utf8val_simd_end();
	return at == len ? len : simd_stopped(s, at, chars);
}

/*
 * Whether a whole short input is valid, by utf8val_arch_whole() of
 * @path (checks_whole()'s); by its blocks() where a section needs a save
 * area (it goes out of line: see simd_prefix()), or where the
 * architecture has no whole(), which checks_whole() never lets here.
 */
static __always_inline bool simd_whole(enum utf8val_path path, const u8 *s,
				       size_t len)
{
	bool ok;

	UTF8VAL_SIMD_SAVE_AREA;
	if (UTF8VAL_SIMD_SAVE_AREA_SIZE || !UTF8VAL_WHOLE_MAX)
		return simd_prefix(simd_impls[path].blocks, s, len, NULL) == len;
	utf8val_simd_begin();
	ok = utf8val_arch_whole(path, s, len);
	utf8val_simd_end();
	return ok;
}

/* The KUnit suite forces each path in turn, and restores the one set. */
UTF8VAL_EXPORT_FOR_TESTS(utf8val_simd_select);
UTF8VAL_EXPORT_FOR_TESTS(utf8val_path_name);
UTF8VAL_EXPORT_FOR_TESTS(utf8val_simd_path);

/* Whole ASCII words at @s that need no per-byte look. */
static size_t ascii_words(const u8 *s, size_t len, bool reject_nul)
{
	size_t i = 0;

	while (len - i >= 8) {
		u64 w = load64(s + i);

		if (w & HIGH_BITS)
			break;
		if (reject_nul && ((w - LOW_BITS) & ~w & HIGH_BITS))
			break;
		i += 8;
	}
	return i;
}

/*
 * A prefix of @s that is ASCII, up to 7 bytes short of the first byte
 * from 0x80 or of the end: 16 bytes a step, then 8; with WORDS_ALIGNED
 * the bytes to a word boundary first, a byte a step.
 */
static __always_inline size_t ascii_prefix(const u8 *s, size_t len)
{
	size_t i = 0;

	if (WORDS_ALIGNED) {
		const size_t to = word_up(s, 0) < len ? word_up(s, 0) : len;

		for (; i < to; i++)
			if (s[i] & 0x80)
				return i;
	}
	while (len - i >= 16 &&
	       !((word_at(s + i) | word_at(s + i + 8)) & HIGH_BITS))
		i += 16;
	if (len - i >= 8 && !(word_at(s + i) & HIGH_BITS))
		i += 8;
	return i;
}

/*
 * Whether the 8 to 64 bytes at @s are ASCII: words that overlap where
 * @len is not a multiple of 8, a branch on the length's class only.
 */
static __always_inline bool short_ascii(const u8 *s, size_t len)
{
	u64 w = load64(s) | load64(s + len - 8);

	if (len > 16) {
		w |= load64(s + 8) | load64(s + len - 16);
		if (len > 32)
			w |= load64(s + 16) | load64(s + 24) |
			     load64(s + len - 32) | load64(s + len - 24);
	}
	return !(w & HIGH_BITS);
}

/*
 * Whether the 8 to 16 bytes at @s are ASCII, which the first and last
 * words hold all of: false from 17 bytes. One test of bits, which GCC
 * makes without a branch on @len.
 */
static __always_inline bool short_pair_ascii(const u8 *s, size_t len)
{
	return !(((load64(s) | load64(s + len - 8)) & HIGH_BITS) | (len > 16));
}

/*
 * The bytes before the first from 0x80 of the 8 to 64 at @s, or @len: for
 * WORDS_ALIGNED, aligned words (ascii_prefix()) and the bytes around
 * them, as an unaligned word there is eight byte loads.
 */
static __always_inline size_t short_ascii_span(const u8 *s, size_t len)
{
	size_t i = ascii_prefix(s, len);

	while (i < len && !(s[i] & 0x80))
		i++;
	return i;
}

/*
 * Whether the 8 to 64 bytes at @s are ASCII: the first and last words
 * first, so that an input they show is not costs no branch on its length.
 * With WORDS_ALIGNED, short_ascii_span() instead.
 */
static __always_inline bool short_words_ascii(const u8 *s, size_t len)
{
	if (WORDS_ALIGNED)
		return short_ascii_span(s, len) == len;
	return !((load64(s) | load64(s + len - 8)) & HIGH_BITS) &&
	       short_ascii(s, len);
}

/*
 * Whether @path checks a whole input of @len bytes at once, here (the
 * length first: constant where no path has a whole()).
 */
static __always_inline bool checks_whole(enum utf8val_path path, size_t len)
{
	return len <= UTF8VAL_WHOLE_MAX && utf8val_arch_has_whole(path, len) &&
	       utf8val_simd_usable();
}

/*
 * The path a call of @chunk bytes under @tbl runs, read once for the
 * call: @chunk is the length the caller was handed, which decides
 * whether vector set-up pays (a stream chunk that first finishes a
 * character left open by the previous one is still a whole chunk).
 */
static __always_inline enum utf8val_path call_path(const u64 *tbl,
						   size_t chunk)
{
	/* (constant scalar where the target has no vector path) */
	return NR_UTF8VAL_PATHS > 1 && tbl == dfa_strict &&
	       chunk >= UTF8VAL_SIMD_MIN_LEN ? utf8val_read_once(simd_path) :
					       UTF8VAL_PATH_SCALAR;
}

/* Whether @path's blocks (@impl's) take the @len bytes left here. */
static __always_inline bool blocks_take(const struct utf8val_simd_impl *impl,
					enum utf8val_path path, size_t len)
{
	return path != UTF8VAL_PATH_SCALAR && len >= impl->min_len &&
	       utf8val_simd_usable();
}

/* Inputs of 8 bytes up to this many: prefix_on() tests words first */
#define WORDS_FIRST_MAX		64

/*
 * The valid prefix as dfa_prefix() gives it, by @path (call_path()'s),
 * and in *@chars (unless NULL) the characters in it.
 */
static __always_inline size_t prefix_on(const u64 *tbl, const u8 *s,
					size_t len, enum utf8val_path path,
					u64 *chars)
{
	const struct utf8val_simd_impl *impl = &simd_impls[path];
	u64 simd_chars = 0, dfa_chars = 0;
	size_t n = 0;

	if (len - 8 <= WORDS_FIRST_MAX - 8) {
		/*
		 * 8 to 64 bytes of ASCII, the commonest short input: words
		 * (with WORDS_ALIGNED, the span of them, kept for the DFA)
		 */
		if (WORDS_ALIGNED)
			n = short_ascii_span(s, len);
		if (WORDS_ALIGNED ? n == len : short_words_ascii(s, len)) {
			if (chars)
				*chars = len;
			return len;
		}
		/*
		 * not ASCII, on a path that checks them whole at once (and
		 * whose blocks take them, if they are to be counted)
		 */
		if (checks_whole(path, len) && (!chars || len >= impl->min_len)) {
			n = chars ? simd_prefix(impl->blocks, s, len,
						&simd_chars) :
				    (simd_whole(path, s, len) ? len : 0);
			goto rest;
		}
		/* the DFA from the first byte that is not ASCII */
		if (WORDS_ALIGNED) {
			simd_chars = n;
			goto rest;
		}
	}
	/* Short input: its ASCII words cost less than vector set-up. */
	if (path != UTF8VAL_PATH_SCALAR && len < impl->ascii_first) {
		n = ascii_prefix(s, len);
		simd_chars = n;
	}
	if (blocks_take(impl, path, len - n))
		n += simd_prefix(impl->blocks, s + n, len - n,
				 chars ? &simd_chars : NULL);
rest:
	if (n < len)	/* only an error or a short input is left */
		n += dfa_prefix(tbl, s + n, len - n, chars ? &dfa_chars : NULL);
	if (chars)
		*chars = simd_chars + dfa_chars;
	return n;
}

/* prefix_on() by the path call_path() gives for a call of @chunk bytes */
static __always_inline size_t fast_prefix(const u64 *tbl, const u8 *s,
					  size_t len, size_t chunk, u64 *chars)
{
	return prefix_on(tbl, s, len, call_path(tbl, chunk), chars);
}

/* What a lead byte allows next, under the given flags. */
struct lead_rule {
	u8 len;		/* sequence length; 0 if @b cannot start one */
	u8 lo, hi;	/* range of the second byte */
	u8 err;		/* if len is 0: the lead's own error; otherwise
			 * the error of a continuation byte outside lo..hi
			 */
};

static struct lead_rule lead_rule(u8 b, unsigned int flags)
{
	const bool rfc2279 = flags & UTF8VAL_RFC2279;

	if (b < 0x80)
		return (struct lead_rule){ 1, 0, 0, UTF8VAL_OK };
	if (b < 0xc0)
		return (struct lead_rule){ 0, 0, 0, UTF8VAL_ECONTINUATION };
	if (b < 0xc2)
		return (struct lead_rule){ 0, 0, 0, UTF8VAL_EOVERLONG };
	if (b < 0xe0)
		return (struct lead_rule){ 2, 0x80, 0xbf, UTF8VAL_OK };
	if (b == 0xe0)
		return (struct lead_rule){ 3, 0xa0, 0xbf, UTF8VAL_EOVERLONG };
	if (b == 0xed && !(flags & UTF8VAL_SURROGATES))
		return (struct lead_rule){ 3, 0x80, 0x9f, UTF8VAL_ESURROGATE };
	if (b < 0xf0)
		return (struct lead_rule){ 3, 0x80, 0xbf, UTF8VAL_OK };
	if (b == 0xf0)
		return (struct lead_rule){ 4, 0x90, 0xbf, UTF8VAL_EOVERLONG };
	if (b < 0xf4)
		return (struct lead_rule){ 4, 0x80, 0xbf, UTF8VAL_OK };
	if (!rfc2279) {
		if (b == 0xf4)
			return (struct lead_rule){ 4, 0x80, 0x8f,
						   UTF8VAL_ETOOLARGE };
		if (b < 0xf8)
			return (struct lead_rule){ 0, 0, 0, UTF8VAL_ETOOLARGE };
		return (struct lead_rule){ 0, 0, 0, UTF8VAL_EBADBYTE };
	}
	if (b < 0xf8)
		return (struct lead_rule){ 4, 0x80, 0xbf, UTF8VAL_OK };
	if (b == 0xf8)
		return (struct lead_rule){ 5, 0x88, 0xbf, UTF8VAL_EOVERLONG };
	if (b < 0xfc)
		return (struct lead_rule){ 5, 0x80, 0xbf, UTF8VAL_OK };
	if (b == 0xfc)
		return (struct lead_rule){ 6, 0x84, 0xbf, UTF8VAL_EOVERLONG };
	if (b == 0xfd)
		return (struct lead_rule){ 6, 0x80, 0xbf, UTF8VAL_OK };
	return (struct lead_rule){ 0, 0, 0, UTF8VAL_EBADBYTE };
}

static bool is_noncharacter(u32 cp)
{
	return (cp >= 0xfdd0 && cp <= 0xfdef) ||
	       ((cp & 0xfffe) == 0xfffe && cp <= 0x10ffff);
}

/* Errors of a complete, well-formed character at offset @at. */
static enum utf8val_error policy_error(u32 cp, u64 at, unsigned int flags)
{
	if (!cp && (flags & UTF8VAL_REJECT_NUL))
		return UTF8VAL_ENUL;
	if ((flags & UTF8VAL_REJECT_NONCHAR) && is_noncharacter(cp))
		return UTF8VAL_ENONCHAR;
	if ((flags & UTF8VAL_REJECT_BOM) && cp == 0xfeff && !at)
		return UTF8VAL_EBOM;
	return UTF8VAL_OK;
}

/* Lead bytes EF..FF (EF..F4 in valid text): the policy candidates. */
static inline u64 high_lead_lanes(u64 w)
{
	return ((w & ~HIGH_BITS) + 0x1111111111111111ull) & w & HIGH_BITS;
}

#define POLICY_STEP	32	/* bytes policy_scan() screens at once */

/*
 * The first character in @s[0, @len) that is U+0000 (if @nul) or a
 * noncharacter (if @nonchar), or @len. @s is valid under the DFA and ends
 * at a boundary. Only a zero byte or a character led by EF..F4 (every
 * noncharacter) can be refused, so 32-byte blocks without such bytes are
 * skipped at once, and the characters of the rest decoded.
 */
static __always_inline size_t policy_scan(const u8 *s, size_t len, bool nul,
					  bool nonchar)
{
	size_t i = 0, end;

	while (i < len) {
		end = len;
		if (len - i >= POLICY_STEP) {
			u64 hit = 0;
			int k;

#pragma GCC unroll 4
			for (k = 0; k < POLICY_STEP; k += 8) {
				u64 w = load64(s + i + k);

				if (nul)
					hit |= (w - LOW_BITS) & ~w & HIGH_BITS;
				if (nonchar)
					hit |= high_lead_lanes(w);
			}
			if (!hit) {
				i += POLICY_STEP;
				continue;
			}
			end = i + POLICY_STEP;
		}
		for (; i < end; i++) {
			/* once: it decides how far to read */
			const u8 b = utf8val_read_once(s[i]);
			u32 cp;

			if (!b && nul)
				return i;
			if (b < 0xef || !nonchar)
				continue;
			/*
			 * The DFA passed a whole character here, unless the
			 * bytes changed since: then the exact path reads them
			 * again, and nothing past @len is read.
			 */
			if (b > 0xf4 || len - i < (b == 0xef ? 3u : 4u))
				return i;
			if (b == 0xef)
				cp = 0xf000 | (s[i + 1] & 0x3f) << 6 |
				     (s[i + 2] & 0x3f);
			else
				cp = (b & 0x07) << 18 |
				     (s[i + 1] & 0x3f) << 12 |
				     (s[i + 2] & 0x3f) << 6 | (s[i + 3] & 0x3f);
			if (is_noncharacter(cp))
				return i;
		}
	}
	return len;
}

/*
 * In @s[0, @len), valid under the DFA and ending at a boundary, where
 * @at is the offset of @s in the whole input: the start of the first
 * character a policy flag refuses, or @len.
 */
static size_t policy_prefix(const u8 *s, size_t len, u64 at,
			    unsigned int flags)
{
	if ((flags & UTF8VAL_REJECT_BOM) && !at && len >= 3 &&
	    s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
		return 0;
	/* one loop per combination, the tests taken out of it */
	switch (flags & (UTF8VAL_REJECT_NUL | UTF8VAL_REJECT_NONCHAR)) {
	case UTF8VAL_REJECT_NUL:
		return policy_scan(s, len, true, false);
	case UTF8VAL_REJECT_NONCHAR:
		return policy_scan(s, len, false, true);
	case UTF8VAL_REJECT_NUL | UTF8VAL_REJECT_NONCHAR:
		return policy_scan(s, len, true, true);
	}
	return len;
}

/*
 * The bytes of a character that @s starts but does not finish, judged by
 * its lead byte alone (0 if it ends at a boundary, or if what is there is
 * not even a start): only a hint, the exact path decides.
 */
static __always_inline size_t open_tail(const u8 *s, size_t len)
{
	size_t i = len;

	/* the commonest end, ASCII, at once */
	if (!len || s[len - 1] < 0x80)
		return 0;
	while (i && len - i < UTF8VAL_MAX_SEQ - 1 && is_cont(s[i - 1]))
		i--;
	if (!i || s[i - 1] < 0xc0)
		return 0;
	i--;
	/* a lead byte with k leading ones starts a k-byte sequence */
	return len - i < (size_t)__builtin_clz(~((u32)s[i] << 24)) ? len - i : 0;
}

/*
 * Windows that double from 64 bytes to 64 KiB keep the cost of finding
 * an error in proportion to its offset, whatever follows it: the error
 * iterator resumes after each one, and U+0000 a million times over must
 * not cost a million passes over the rest. Returns the next window of
 * the @rest bytes at @s, cut before a character it would split (all of
 * @rest if that is shorter), and doubles *@win.
 */
#define WINDOW_MIN	64
#define WINDOW_MAX	(64 * 1024)

static size_t next_window(const u8 *s, size_t rest, size_t *win)
{
	size_t n = rest > *win ? *win - open_tail(s, *win) : rest;

	if (*win < WINDOW_MAX)
		*win *= 2;
	return n;
}

/*
 * fast_prefix() under the policy flags too: the DFA's valid prefix cut
 * before the first character they refuse, which the exact path then
 * classifies; in windows (next_window()).
 */
static size_t checked_prefix(const u64 *tbl, const u8 *s, size_t len,
			     size_t chunk, u64 at, unsigned int flags,
			     u64 *chars)
{
	size_t done = 0, win = WINDOW_MIN, n, p;
	u64 count;

	if (!(flags & POLICY_FLAGS))
		return fast_prefix(tbl, s, len, chunk, chars);
	*chars = 0;
	while (done < len) {
		const u8 *w = s + done;
		size_t wlen = next_window(w, len - done, &win);

		/* a window pays for vector set-up by its own length */
		n = fast_prefix(tbl, w, wlen, wlen, &count);
		p = policy_prefix(w, n, at + done, flags);
		*chars += count - utf8val_count(w + p, n - p);
		done += p;
		if (p < wlen)	/* an error, or the end's open character */
			break;
	}
	return done;
}

static void set_error(struct utf8val_stream *st, u64 at,
		      enum utf8val_error err, u32 len)
{
	st->error = err;
	st->err_at = at;
	st->error_len = len;
}

/*
 * The exact path: consume @len bytes into @st, one character at a time,
 * until the end or the first error, which it classifies and records.
 */
static void exact_scan(struct utf8val_stream *st, const u8 *s, size_t len)
{
	const unsigned int flags = st->flags;
	const bool reject_nul = flags & UTF8VAL_REJECT_NUL;
	const bool policy = flags & POLICY_FLAGS;
	unsigned int seen = st->seen, need = st->need;
	struct lead_rule rule = { 0 };
	u64 chars = st->chars;
	u32 cp = st->cp;
	size_t i = 0;

	if (seen)
		rule = lead_rule(st->lead, flags);

	while (i < len) {
		const u8 b = s[i];
		u8 lo = 0x80, hi = 0xbf;

		if (!seen) {
			if (b < 0x80) {
				if (!b && reject_nul) {
					set_error(st, st->pos + i,
						  UTF8VAL_ENUL, 1);
					break;
				}
				i++;
				chars++;
				if (len - i >= 8) {
					size_t n = ascii_words(s + i, len - i,
							       reject_nul);

					i += n;
					chars += n;
				}
				continue;
			}
			rule = lead_rule(b, flags);
			if (!rule.len) {
				set_error(st, st->pos + i, rule.err, 1);
				break;
			}
			st->lead = b;
			cp = b & (0x7f >> rule.len);
			seen = 1;
			need = rule.len - 1;
			i++;
			continue;
		}

		if (seen == 1) {
			lo = rule.lo;
			hi = rule.hi;
		}
		if (b < lo || b > hi) {
			enum utf8val_error err = UTF8VAL_ESHORT;

			if (seen == 1 && is_cont(b))
				err = rule.err;
			set_error(st, st->pos + i - seen, err, seen);
			break;
		}
		cp = (cp << 6) | (b & 0x3f);
		seen++;
		i++;
		if (--need)
			continue;

		if (policy) {
			u64 at = st->pos + i - seen;
			enum utf8val_error err = policy_error(cp, at, flags);

			if (err) {
				set_error(st, at, err, seen);
				i -= seen;
				seen = 0;
				break;
			}
		}
		seen = 0;
		chars++;
	}

	st->pos += i;
	st->chars = chars;
	st->cp = cp;
	st->seen = seen;
	st->need = need;
}

/**
 * utf8val_count() - count the characters of valid UTF-8
 * @buf: bytes, already known to be valid
 * @len: length of @buf in bytes
 *
 * Counts the bytes that are not continuation bytes (80..BF), which for
 * valid input in any mode is the number of code points. For input not
 * known to be valid, use the @chars of utf8val_validate() instead.
 *
 * Context: Any context.
 * Return: the number of code points in @buf.
 */
u64 utf8val_count(const void *buf, size_t len)
{
	const u8 *s = buf;
	u64 cont = 0;
	size_t i = 0;

	while (len - i >= 32) {
		u64 lanes = 0, pairs;
		unsigned int n;

		/* 63 rounds of up to 4 per byte lane stay below 256. */
		for (n = 0; n < 63 && len - i >= 32; n++, i += 32) {
			u64 w0 = load64(s + i), w1 = load64(s + i + 8);
			u64 w2 = load64(s + i + 16), w3 = load64(s + i + 24);

			if (!((w0 | w1 | w2 | w3) & HIGH_BITS))
				continue;
			lanes += cont_lanes(w0) + cont_lanes(w1) +
				 cont_lanes(w2) + cont_lanes(w3);
		}
		pairs = (lanes & 0x00ff00ff00ff00ffull) +
			((lanes >> 8) & 0x00ff00ff00ff00ffull);
		cont += (pairs * 0x0001000100010001ull) >> 48;
	}
	for (; i < len; i++)
		cont += is_cont(s[i]);
	return len - cont;
}

UTF8VAL_EXPORT(utf8val_count);

/* 0x80 in each byte lane of @w that holds a newline, 0 in the others. */
static inline u64 newline_lanes(u64 w)
{
	const u64 x = w ^ (LOW_BITS * '\n');

	/* bit 7 of a lane set where x has any bit set: no carry leaves it */
	return ~(((x & ~HIGH_BITS) + ~HIGH_BITS) | x) & HIGH_BITS;
}

/*
 * The offset just past the last newline in the @len bytes at @s, a word
 * at a time from the end; 0 if there is none. Callers start it near that
 * newline.
 */
static size_t after_last_newline(const u8 *s, size_t len)
{
	size_t i = len;

	while (i >= 8 && !newline_lanes(load64(s + i - 8)))
		i -= 8;
	while (i && s[i - 1] != '\n')
		i--;
	return i;
}

/*
 * The newlines in the @len bytes at @s, a word at a time (the kernel's
 * memchr() on x86-64 and riscv is lib/string.c's, a byte a step); if
 * there is one, *@after is the offset just past the last.
 */
static u64 newlines_words(const u8 *s, size_t len, size_t *after)
{
	size_t i = 0, last = 0;	/* where a search back finds the last */
	u64 total = 0;

	while (len - i >= 32) {
		u64 lanes = 0, pairs;
		unsigned int n;

		/* 63 rounds of up to 4 per byte lane stay below 256. */
		for (n = 0; n < 63 && len - i >= 32; n++, i += 32) {
			const u64 round =
				(newline_lanes(load64(s + i)) >> 7) +
				(newline_lanes(load64(s + i + 8)) >> 7) +
				(newline_lanes(load64(s + i + 16)) >> 7) +
				(newline_lanes(load64(s + i + 24)) >> 7);

			lanes += round;
			last = round ? i + 32 : last;
		}
		pairs = (lanes & 0x00ff00ff00ff00ffull) +
			((lanes >> 8) & 0x00ff00ff00ff00ffull);
		total += (pairs * 0x0001000100010001ull) >> 48;
	}
	for (; i < len; i++) {
		if (s[i] == '\n') {
			total++;
			last = i + 1;
		}
	}
	if (total)
		*after = after_last_newline(s, last);
	return total;
}

/*
 * The newlines in whole 64-byte blocks at @s, by the path's vector code,
 * in sections of SIMD_SECTION bytes at most; *@last_end as newlines()
 * gives it.
 */
static noinline u64 simd_newlines(utf8val_newlines_fn newlines, const u8 *s,
				  size_t len, size_t *last_end)
{
	size_t at, n, end = 0;
	u64 total = 0;

	UTF8VAL_SIMD_SAVE_AREA;
	for (at = 0; at < len; at += n) {
		u64 k;

		n = len - at < SIMD_SECTION ? len - at : SIMD_SECTION;
		utf8val_simd_begin();
		k = newlines(s + at, n, &end);
		utf8val_simd_end();
		if (k)
			*last_end = at + end;
		total += k;
	}
	return total;
}

/*
 * The newlines in the @len bytes at @s, by the fastest path; if there is
 * one, *@after is the offset just past the last.
 */
static u64 count_newlines(const u8 *s, size_t len, size_t *after)
{
	const size_t blocks = len & ~(size_t)63;
	utf8val_newlines_fn newlines = NULL;
	size_t last_end = 0;
	u64 n;

	if (NR_UTF8VAL_PATHS > 1 && blocks && len >= UTF8VAL_SIMD_MIN_LEN)
		newlines = simd_impls[utf8val_read_once(simd_path)].newlines;
	if (!newlines || !utf8val_simd_usable())
		return newlines_words(s, len, after);
	n = newlines_words(s + blocks, len - blocks, after);
	if (n) {
		*after += blocks;
		return n + simd_newlines(newlines, s, blocks, &last_end);
	}
	n = simd_newlines(newlines, s, blocks, &last_end);
	if (n)
		*after = after_last_newline(s, last_end);
	return n;
}

/**
 * utf8val_lines_follow() - follow the lines of the chunk just fed
 * @l: the stream's lines so far
 * @st: the stream, @buf fed to it last
 * @buf: the chunk
 * @len: its length in bytes
 * @start: the stream's offset of @buf[0]
 *
 * Counts the newlines of @buf's valid text, up to the stream's first
 * error if it is in @buf. A character left open at the end of @buf holds
 * no newline, and its lead byte is the one byte of @buf not yet counted
 * in the stream's characters. @buf must not change from the feed to
 * here (the device's bounce page does not); if it does, nothing outside
 * it is read, but the column may be wrong.
 *
 * Context: Any context.
 */
void utf8val_lines_follow(struct utf8val_lines *l,
			  const struct utf8val_stream *st,
			  const void *buf, size_t len, u64 start)
{
	struct utf8val_result res;
	const u8 *s = buf;
	u64 leads, newlines;
	size_t after;

	utf8val_stream_result(st, &res);
	leads = res.chars + (res.error == UTF8VAL_EINCOMPLETE);
	if (res.error && res.error != UTF8VAL_EINCOMPLETE) {
		len = res.valid_up_to > start ? res.valid_up_to - start : 0;
		leads = res.chars;
	}
	newlines = count_newlines(s, len, &after);
	if (!newlines)
		return;
	l->line += newlines;
	l->line_chars = leads - utf8val_count(s + after, len - after);
}

/* The KUnit suite follows the device's lines on each path. */
UTF8VAL_EXPORT_FOR_TESTS(utf8val_lines_follow);

/**
 * utf8val_stream_init() - start an incremental validation
 * @st: caller-allocated stream state
 * @flags: UTF8VAL_* flags, 0 for strict RFC 3629
 *
 * Unknown flag bits make the stream fail with %UTF8VAL_EFLAGS on every
 * call, having validated nothing.
 *
 * Context: Any context.
 */
void utf8val_stream_init(struct utf8val_stream *st, unsigned int flags)
{
	*st = (struct utf8val_stream){ .flags = flags };
	if (flags & ~UTF8VAL_FLAGS_ALL)
		st->error = UTF8VAL_EFLAGS;
}

UTF8VAL_EXPORT(utf8val_stream_init);

/*
 * Finish the character that the previous chunk left open, when this one
 * holds the rest of it, valid, and no policy flag refuses it: most chunks
 * of text that is not ASCII start inside a character, and the DFA takes
 * it a byte a step, where the exact path would first set itself up.
 * Returns the bytes taken, or 0 having changed nothing: then the exact
 * path decides, from the same state.
 */
static size_t stream_finish_char(struct utf8val_stream *st, const u64 *tbl,
				 const u8 *s, size_t len)
{
	/* the DFA's state once the lead's own range for the second byte
	 * is passed: @need more bytes, any of 80..BF
	 */
	static const u8 conts_left[] = { [1] = S_C1, [2] = S_C2, [3] = S_C3 };
	const unsigned int need = st->need;
	u32 cp = st->cp;
	unsigned int i;
	u64 state;

	if (len < need)
		return 0;
	state = st->seen == 1 ? tbl[st->lead] >> S_ACC : conts_left[need];
	for (i = 0; i < need; i++) {
		const u8 b = s[i];

		state = tbl[b] >> (state & STATE_MASK);
		cp = cp << 6 | (b & 0x3f);
	}
	if ((state & STATE_MASK) != S_ACC)
		return 0;
	if ((st->flags & POLICY_FLAGS) &&
	    policy_error(cp, st->pos - st->seen, st->flags))
		return 0;
	st->pos += need;
	st->chars++;
	st->cp = cp;
	st->seen = 0;
	st->need = 0;
	return need;
}

/*
 * Open the character that a chunk ends inside, its @n bytes at @s as
 * open_tail() found them, when they are a valid start of one: the state
 * the exact path would store, without its set-up. Returns false having
 * changed nothing if they are not: then the exact path decides.
 */
static bool stream_open_char(struct utf8val_stream *st, const u64 *tbl,
			     const u8 *s, size_t n)
{
	const u8 lead = s[0];
	/* a lead byte with k leading ones starts a k-byte sequence */
	const unsigned int len = __builtin_clz(~((u32)lead << 24));
	u64 state = tbl[lead] >> S_ACC;
	u32 cp = lead & (0x7f >> len);
	size_t i;

	for (i = 1; i < n; i++) {
		const u8 b = s[i];

		state = tbl[b] >> (state & STATE_MASK);
		cp = cp << 6 | (b & 0x3f);
	}
	state &= STATE_MASK;
	if (state == S_ERR || state == S_ACC)
		return false;
	st->lead = lead;
	st->seen = n;
	st->need = len - n;
	st->cp = cp;
	st->pos += n;
	return true;
}

/*
 * Feed @len bytes into a stream that has no error yet, in a mode of the
 * DFA's, @tbl; @strict if in strict RFC 3629 with no policy flag.
 */
static __always_inline void stream_feed_dfa(struct utf8val_stream *st,
					    const u64 *tbl, const u8 *s,
					    size_t len, bool strict)
{
	const size_t chunk = len;
	size_t n, tail;
	u64 chars;

	if (st->seen) {
		/* Finish the sequence a previous chunk left open. */
		n = stream_finish_char(st, tbl, s, len);
		if (!n) {
			n = len < st->need ? len : st->need;
			exact_scan(st, s, n);
			if (st->error || st->seen)
				return;
		}
		s += n;
		len -= n;
	}
	/*
	 * A chunk that ends inside a character is the common case: hand the
	 * fast path only the complete ones, so that it does not stop there
	 * and step back, and open the last here.
	 */
	tail = open_tail(s, len);
	/* (checked_prefix() with no policy flag: fast_prefix(), not inline) */
	if (strict)
		n = fast_prefix(dfa_strict, s, len - tail, chunk, &chars);
	else
		n = checked_prefix(tbl, s, len - tail, chunk, st->pos,
				   st->flags, &chars);
	st->chars += chars;
	st->pos += n;
	if (n == len)
		return;
	if (n != len - tail || !stream_open_char(st, tbl, s + n, tail))
		exact_scan(st, s + n, len - n);
}

/*
 * Whether a chunk of @len bytes at @s may go to the blocks at once
 * (stream_feed_blocks()): a strict stream between characters, a chunk
 * that ends in ASCII (the general feed opens a character that one ends
 * inside; the blocks would refuse it, so the test only spares them), and
 * longer than prefix_on() tests by words. The path decides the rest.
 */
static __always_inline bool stream_blocks_may(const struct utf8val_stream *st,
					      const u8 *s, size_t len)
{
	return len > WORDS_FIRST_MAX && !(st->flags | st->seen) &&
	       s[len - 1] < 0x80;
}

/*
 * Most chunks of mostly-ASCII text, fed to the path's blocks without the
 * general feed's set-up (a frame for its registers, the character left
 * open and the one the chunk ends inside, the tests for short input),
 * which cost a 4 KiB chunk a fifth of its time. Where the blocks stop,
 * at an error, the exact path goes on from there, as in
 * stream_feed_dfa().
 */
static noinline enum utf8val_error
stream_feed_blocks(struct utf8val_stream *st, const u8 *s, size_t len,
		   enum utf8val_path path)
{
	u64 chars = 0;
	size_t n = simd_prefix(simd_impls[path].blocks, s, len, &chars);

	st->chars += chars;
	st->pos += n;
	if (n < len)
		exact_scan(st, s + n, len - n);
	return st->error;
}

/*
 * Feed @len bytes into a stream that has no error yet; returns its error
 * after. Out of line, as stream_feed_blocks(), so that the entry point
 * that chooses between them saves no registers.
 */
static noinline enum utf8val_error stream_feed(struct utf8val_stream *st,
					       const u8 *s, size_t len)
{
	const u64 *tbl;

	/*
	 * Strict RFC 3629, the device's default, has the fast path inline
	 * and its table a constant: a few instructions less a chunk, which
	 * a page-sized one of ASCII on a vector path still feels.
	 */
	if (!st->flags) {
		stream_feed_dfa(st, dfa_strict, s, len, true);
		return st->error;
	}
	tbl = dfa_table(st->flags);
	if (tbl)
		stream_feed_dfa(st, tbl, s, len, false);
	else
		exact_scan(st, s, len);
	return st->error;
}

/**
 * utf8val_stream_feed() - validate the next chunk of a stream
 * @st: stream started by utf8val_stream_init()
 * @buf: the next bytes
 * @len: length of @buf in bytes
 *
 * Chunks may split characters anywhere: a stream cut at any byte, into any
 * number of pieces, reaches exactly the verdict of utf8val_validate() on
 * the whole input.
 *
 * Context: Any context.
 * Return: %UTF8VAL_OK while the input is valid so far (it may end inside
 * a character), otherwise the first error, which is sticky: later chunks
 * are ignored.
 */
enum utf8val_error utf8val_stream_feed(struct utf8val_stream *st,
				       const void *buf, size_t len)
{
	enum utf8val_path path;

	if (st->error)
		return st->error;
	/* (the path read only for a chunk that may take it) */
	if (stream_blocks_may(st, buf, len)) {
		path = call_path(dfa_strict, len);
		if (len >= simd_impls[path].ascii_first &&
		    blocks_take(&simd_impls[path], path, len))
			return stream_feed_blocks(st, buf, len, path);
	}
	return stream_feed(st, buf, len);
}

UTF8VAL_EXPORT(utf8val_stream_feed);

/*
 * The fast path counts characters as it reads and takes back those after
 * where it stops by reading them again: bytes that change during the call
 * can make the two disagree. No answer counts more characters than bytes.
 */
static inline u64 chars_within(u64 chars, u64 bytes)
{
	return chars <= bytes ? chars : bytes;
}

/**
 * utf8val_stream_result() - the verdict as if the input ended now
 * @st: stream started by utf8val_stream_init()
 * @res: where to store the verdict, or %NULL
 *
 * Offsets are absolute, counted from the first byte fed. A character left
 * open by the last chunk gives %UTF8VAL_EINCOMPLETE. The stream is not
 * ended: more chunks may follow.
 *
 * Context: Any context.
 * Return: the error of the verdict, %UTF8VAL_OK if valid.
 */
enum utf8val_error utf8val_stream_result(const struct utf8val_stream *st,
					 struct utf8val_result *res)
{
	struct utf8val_result r = {
		.valid_up_to = st->pos - st->seen,
		.chars = chars_within(st->chars, st->pos - st->seen),
	};

	if (st->error) {
		r.valid_up_to = st->err_at;
		r.chars = chars_within(st->chars, st->err_at);
		r.error = st->error;
		r.error_len = st->error_len;
	} else if (st->seen) {
		r.error = UTF8VAL_EINCOMPLETE;
		r.error_len = st->seen;
	}
	if (res)
		*res = r;
	return r.error;
}

UTF8VAL_EXPORT(utf8val_stream_result);

/*
 * utf8val_validate() with @chunk as the length that decides whether a
 * vector path pays (0: it never does).
 */
static enum utf8val_error validate(const void *buf, size_t len,
				   unsigned int flags,
				   struct utf8val_result *res, size_t chunk)
{
	const u64 *tbl = dfa_table(flags);
	struct utf8val_stream st;
	u64 chars = 0;
	size_t n = 0;

	if (tbl) {
		n = checked_prefix(tbl, buf, len, chunk, 0, flags, &chars);
		if (n == len) {
			if (res)
				*res = (struct utf8val_result){
					.valid_up_to = len,
					.chars = chars_within(chars, len),
				};
			return UTF8VAL_OK;
		}
	}
	utf8val_stream_init(&st, flags);
	if (!st.error) {
		st.pos = n;
		st.chars = chars;
		exact_scan(&st, (const u8 *)buf + n, len - n);
	}
	return utf8val_stream_result(&st, res);
}

/**
 * utf8val_validate() - validate a buffer and locate the first error
 * @buf: bytes to validate
 * @len: length of @buf in bytes
 * @flags: UTF8VAL_* flags, 0 for strict RFC 3629
 * @res: where to store the verdict, or %NULL
 *
 * The error reported is the first one the RFC 3629 ABNF (as widened or
 * narrowed by @flags) fails on, reading left to right; its length is the
 * maximal subpart, so replacing each reported subsequence with U+FFFD and
 * resuming after it gives the Unicode-recommended conversion.
 *
 * Context: Any context.
 * Return: %UTF8VAL_OK if @buf is valid, otherwise the error, also stored
 * in @res.
 */
enum utf8val_error utf8val_validate(const void *buf, size_t len,
				    unsigned int flags,
				    struct utf8val_result *res)
{
	return validate(buf, len, flags, res, len);
}

UTF8VAL_EXPORT(utf8val_validate);

/* check_long() of an input that does not go straight to the blocks */
static noinline bool check_general(const u8 *s, size_t len,
				   enum utf8val_path path)
{
	return prefix_on(dfa_strict, s, len, path, NULL) == len;
}

/* utf8val_check() of a short input by the DFA, out of line (see there) */
static noinline bool check_dfa(const u8 *s, size_t len)
{
	return dfa_prefix(dfa_strict, s, len, NULL) == len;
}

/*
 * utf8val_check() of all but 8 to 64 bytes, out of line (see there):
 * past 64 bytes straight to the path's whole() where that takes the
 * input (either path's, to 1 KiB); else, if its ASCII words do not go
 * first, to the path's blocks, as prefix_on() would send it, without the
 * rest of its set-up (which, inlined, made every call save five
 * registers).
 */
static noinline bool check_long(const u8 *s, size_t len)
{
	enum utf8val_path path = call_path(dfa_strict, len);
	const struct utf8val_simd_impl *impl = &simd_impls[path];
	size_t n;

	if (len > WORDS_FIRST_MAX && checks_whole(path, len))
		return simd_whole(path, s, len);
	if (len < impl->ascii_first || !blocks_take(impl, path, len))
		return check_general(s, len, path);
	n = simd_prefix(impl->blocks, s, len, NULL);
	return n == len || check_dfa(s + n, len - n);
}

/**
 * utf8val_check() - is a buffer valid strict RFC 3629 UTF-8?
 * @buf: bytes to validate
 * @len: length of @buf in bytes
 *
 * The fastest path: no flags, no position, no count.
 *
 * Context: Any context.
 * Return: true if @buf is valid.
 */
bool utf8val_check(const void *buf, size_t len)
{
	/*
	 * 8 to 64 bytes, the commonest input, answered here: by one call
	 * of the path's whole() where it has one for them (as nothing asks
	 * where the error is), ASCII too, but for 8 to 16 bytes (two words
	 * hold them); else by the words, or the DFA. The words' branches
	 * on the length and on the bytes mispredict where strings vary,
	 * more than whole() costs (Documentation/utf8val.rst). The DFA
	 * and the longer inputs' set-up are in functions of their own:
	 * inlined, they made this one save five registers on every call,
	 * a third of a short ASCII input's time.
	 */
	if (len - 8 > 56)
		return check_long(buf, len);
	/* (the path is read only where one has a whole()) */
	if (len <= UTF8VAL_WHOLE_MAX) {
		enum utf8val_path path = call_path(dfa_strict, len);

		if (checks_whole(path, len)) {
			if (short_pair_ascii(buf, len))
				return true;
			return simd_whole(path, buf, len);
		}
	}
	/* with WORDS_ALIGNED, the DFA from the first byte that is not ASCII */
	if (WORDS_ALIGNED) {
		const size_t n = short_ascii_span(buf, len);

		return n == len || check_dfa((const u8 *)buf + n, len - n);
	}
	if (short_words_ascii(buf, len))
		return true;
	return check_dfa(buf, len);
}

UTF8VAL_EXPORT(utf8val_check);

/*
 * utf8val_check() and utf8val_validate() on the scalar path only, for
 * callers that cannot know whether vector registers may be used where
 * they run (BPF tracing programs: utf8val_bpf.c).
 */
bool utf8val_check_scalar(const void *buf, size_t len)
{
	return fast_prefix(dfa_strict, buf, len, 0, NULL) == len;
}

enum utf8val_error utf8val_validate_scalar(const void *buf, size_t len,
					   unsigned int flags,
					   struct utf8val_result *res)
{
	return validate(buf, len, flags, res, 0);
}

/**
 * utf8val_errors_init() - start iterating over the errors of a buffer
 * @it: caller-allocated iteration state
 * @buf: bytes to validate; must stay in place while @it is used
 * @len: length of @buf in bytes
 * @flags: UTF8VAL_* flags, 0 for strict RFC 3629
 *
 * Context: Any context.
 */
void utf8val_errors_init(struct utf8val_errors *it, const void *buf,
			 size_t len, unsigned int flags)
{
	*it = (struct utf8val_errors){
		.buf = buf,
		.len = len,
		.flags = flags,
	};
}

UTF8VAL_EXPORT(utf8val_errors_init);

/**
 * utf8val_errors_next() - the next error, resuming after the last one
 * @it: iteration started by utf8val_errors_init()
 * @err: where to store the error, or the totals at the end; or %NULL
 *
 * Each error is the one utf8val_validate() would report on the rest of
 * the buffer after the previous error's maximal subpart, with offsets
 * counted from the start of the buffer: @err->valid_up_to is where it
 * starts, @err->error_len its length, and @err->chars the characters
 * before it, each earlier error counting as one. Those are the positions
 * of its U+FFFD in what utf8val_replace() makes. A %UTF8VAL_REJECT_BOM
 * error can only be the first. An input that ends inside a character
 * gives %UTF8VAL_EINCOMPLETE last; unknown flag bits give
 * %UTF8VAL_EFLAGS once, having validated nothing (and totals of nothing,
 * with that error).
 *
 * Context: Any context.
 * Return: true with the next error in @err; false when there is none
 * left, with the totals in @err (@err->valid_up_to the length, @err->chars
 * the characters, errors counted as one each, @err->error %UTF8VAL_OK).
 */
bool utf8val_errors_next(struct utf8val_errors *it,
			 struct utf8val_result *err)
{
	struct utf8val_result r = { 0 };
	size_t win = WINDOW_MIN;

	/* unknown flags: reported once, nothing validated */
	if (!it->ended && (it->flags & ~UTF8VAL_FLAGS_ALL)) {
		it->ended = true;
		if (err)
			*err = (struct utf8val_result){
				.error = UTF8VAL_EFLAGS,
			};
		return true;
	}
	/*
	 * In windows (next_window()): the next error costs work in
	 * proportion to its distance, not a pass of the fast path's lanes
	 * (a kilobyte or more) per error in text made of them.
	 */
	while (!it->ended && it->pos < it->len) {
		/* a BOM counts only at the start of the input */
		unsigned int flags = it->pos ? it->flags & ~UTF8VAL_REJECT_BOM :
					       it->flags;
		const u8 *s = it->buf + it->pos;
		size_t rest = it->len - it->pos;
		size_t n = next_window(s, rest, &win);

		utf8val_validate(s, n, flags, &r);
		if (n == rest || (r.error && r.error != UTF8VAL_EINCOMPLETE))
			break;
		it->pos += r.valid_up_to;
		it->chars += r.chars;
		r = (struct utf8val_result){ 0 };
	}
	if (it->ended || r.error == UTF8VAL_OK) {
		const bool bad_flags = it->flags & ~UTF8VAL_FLAGS_ALL;

		it->chars += r.chars;
		it->pos = it->len;
		it->ended = true;
		if (err)
			*err = (struct utf8val_result){
				.valid_up_to = bad_flags ? 0 : it->len,
				.chars = it->chars,
				.error = bad_flags ? UTF8VAL_EFLAGS : 0,
			};
		return false;
	}
	r.valid_up_to += it->pos;
	r.chars += it->chars;
	it->chars = r.chars + 1;	/* the error, as its U+FFFD */
	it->pos = r.valid_up_to + r.error_len;
	it->ended = r.error == UTF8VAL_EINCOMPLETE;
	if (err)
		*err = r;
	return true;
}

UTF8VAL_EXPORT(utf8val_errors_next);

/*
 * Append @n bytes of whole characters to @dst while they fit in @size:
 * once something does not, only the whole characters of it that fit, and
 * nothing after. Returns the new length of the full output.
 */
static u64 put_whole(u8 *dst, size_t size, u64 at, const u8 *src, size_t n,
		     bool *full)
{
	size_t fits = n, i;

	if (!*full) {
		if (at + n > size) {
			fits = at < size ? size - at : 0;
			/* back up to the start of the character cut */
			while (fits && is_cont(src[fits]))
				fits--;
			*full = true;
		}
		/* a loop: the freestanding core has no memcpy() to call */
		for (i = 0; i < fits; i++)
			dst[at + i] = src[i];
	}
	return at + n;
}

/**
 * utf8val_replace() - copy a buffer with each error replaced by U+FFFD
 * @buf: bytes to copy
 * @len: length of @buf in bytes
 * @flags: UTF8VAL_* flags, 0 for strict RFC 3629
 * @dst: where to write, or %NULL when @size is 0
 * @size: room at @dst in bytes
 *
 * Each error that utf8val_errors_next() reports, the maximal subpart,
 * becomes one U+FFFD (%UTF8VAL_REPLACEMENT); everything else is copied.
 * With @flags 0 that is the decoder of the WHATWG Encoding Standard,
 * byte for byte (and Python's ``decode('utf-8', 'replace')``). @buf and
 * @dst must not overlap. Call it with @size 0 to learn the size needed,
 * or give it %UTF8VAL_REPLACE_MAX(@len) bytes, which are always enough.
 *
 * Context: Any context.
 * Return: the length of the whole result. If that is more than @size, @dst
 * holds the longest run of whole characters of it that fits. Unknown flag
 * bits return %UTF8VAL_REPLACE_EFLAGS and write nothing.
 */
unsigned long long utf8val_replace(const void *buf, size_t len,
				   unsigned int flags, void *dst, size_t size)
{
	static const u8 fffd[] = UTF8VAL_REPLACEMENT;
	struct utf8val_errors it;
	struct utf8val_result err;
	const u8 *s = buf;
	bool full = false;
	u64 from = 0, out = 0;

	if (flags & ~UTF8VAL_FLAGS_ALL)
		return UTF8VAL_REPLACE_EFLAGS;
	if (!len)	/* no pointer arithmetic on a NULL @buf */
		return 0;
	utf8val_errors_init(&it, buf, len, flags);
	while (utf8val_errors_next(&it, &err)) {
		out = put_whole(dst, size, out, s + from,
				err.valid_up_to - from, &full);
		out = put_whole(dst, size, out, fffd, 3, &full);
		from = err.valid_up_to + err.error_len;
	}
	return put_whole(dst, size, out, s + from, len - from, &full);
}

UTF8VAL_EXPORT(utf8val_replace);

/**
 * utf8val_decode() - decode the first character of a buffer
 * @buf: bytes to decode
 * @len: length of @buf in bytes
 * @flags: UTF8VAL_* flags, 0 for strict RFC 3629
 * @cp: where to store the code point, U+FFFD on error
 * @seq_len: where to store the bytes it took, or on error the maximal
 *	subpart to skip (0 for an empty buffer)
 *
 * Agrees with utf8val_validate() on the first character of @buf, which
 * counts as the start of the input for %UTF8VAL_REJECT_BOM.
 *
 * Context: Any context.
 * Return: %UTF8VAL_OK, or the error; %UTF8VAL_EINCOMPLETE if @buf ends
 * inside the character or is empty.
 */
enum utf8val_error utf8val_decode(const void *buf, size_t len,
				  unsigned int flags, u32 *cp, u32 *seq_len)
{
	struct utf8val_stream st;
	struct utf8val_result res;
	u8 s[UTF8VAL_MAX_SEQ];
	size_t n, i;

	*cp = REPLACEMENT_CHAR;
	*seq_len = 0;
	utf8val_stream_init(&st, flags);
	if (st.error)
		return st.error;
	if (!len)
		return UTF8VAL_EINCOMPLETE;

	/* each byte read once, so that one that changes meanwhile is seen
	 * with one value
	 */
	s[0] = utf8val_read_once(*(const u8 *)buf);
	n = lead_rule(s[0], flags).len;
	if (!n)
		n = 1;
	if (n > len)
		n = len;
	for (i = 1; i < n; i++)
		s[i] = utf8val_read_once(((const u8 *)buf)[i]);
	exact_scan(&st, s, n);
	if (utf8val_stream_result(&st, &res)) {
		*seq_len = res.error_len;
		return res.error;
	}
	*cp = s[0] < 0x80 ? s[0] : st.cp;
	*seq_len = n;
	return UTF8VAL_OK;
}

UTF8VAL_EXPORT(utf8val_decode);

/**
 * utf8val_encode() - encode one code point
 * @cp: the code point
 * @flags: UTF8VAL_* flags, 0 for strict RFC 3629
 * @out: room for UTF8VAL_MAX_SEQ bytes (4 suffice without
 *	%UTF8VAL_RFC2279)
 *
 * Refuses what utf8val_validate() with the same @flags would reject:
 * surrogates (unless %UTF8VAL_SURROGATES), values above U+10FFFF (above
 * U+7FFFFFFF with %UTF8VAL_RFC2279), U+0000 with %UTF8VAL_REJECT_NUL and
 * noncharacters with %UTF8VAL_REJECT_NONCHAR. %UTF8VAL_REJECT_BOM is about
 * position, not value, and is ignored.
 *
 * Context: Any context.
 * Return: the number of bytes written, 0 if @cp was refused or @flags has
 * unknown bits.
 */
u32 utf8val_encode(u32 cp, unsigned int flags, u8 *out)
{
	const u32 max = flags & UTF8VAL_RFC2279 ? 0x7fffffff : 0x10ffff;
	u32 len, i;

	if ((flags & ~UTF8VAL_FLAGS_ALL) || cp > max)
		return 0;
	if (cp >= 0xd800 && cp <= 0xdfff && !(flags & UTF8VAL_SURROGATES))
		return 0;
	if (policy_error(cp, 1, flags))
		return 0;

	if (cp < 0x80) {
		out[0] = cp;
		return 1;
	}
	if (cp < 0x800)
		len = 2;
	else if (cp < 0x10000)
		len = 3;
	else if (cp < 0x200000)
		len = 4;
	else if (cp < 0x4000000)
		len = 5;
	else
		len = 6;
	for (i = len - 1; i > 0; i--) {
		out[i] = 0x80 | (cp & 0x3f);
		cp >>= 6;
	}
	out[0] = (u8)(0xff00 >> len) | cp;
	return len;
}

UTF8VAL_EXPORT(utf8val_encode);

/**
 * utf8val_error_name() - short stable name of an error
 * @err: an enum utf8val_error, as &struct utf8val_result.error holds it
 *
 * The names are ABI: the device's verdict lines use them. (@err is an
 * unsigned int, the type of the result's field, so that C++ takes the
 * field as it is.)
 *
 * Context: Any context.
 * Return: a static string such as "overlong"; "unknown" for values
 * outside the enum.
 */
const char *utf8val_error_name(unsigned int err)
{
	static const char *const names[] = {
		[UTF8VAL_OK] = "ok",
		[UTF8VAL_EINCOMPLETE] = "incomplete",
		[UTF8VAL_ECONTINUATION] = "continuation",
		[UTF8VAL_EBADBYTE] = "bad-byte",
		[UTF8VAL_ESHORT] = "short",
		[UTF8VAL_EOVERLONG] = "overlong",
		[UTF8VAL_ESURROGATE] = "surrogate",
		[UTF8VAL_ETOOLARGE] = "too-large",
		[UTF8VAL_ENUL] = "nul",
		[UTF8VAL_ENONCHAR] = "noncharacter",
		[UTF8VAL_EBOM] = "bom",
		[UTF8VAL_EFLAGS] = "flags",
	};

	/* a new error is named here (the device's counters take these) */
	BUILD_BUG_ON(ARRAY_SIZE(names) != UTF8VAL_NR_ERRORS);
	if (err >= ARRAY_SIZE(names))
		return "unknown";
	return names[err];
}

UTF8VAL_EXPORT(utf8val_error_name);

/**
 * utf8val_version() - the version of the code linked in
 *
 * A program built against one version of utf8val.h may run with another
 * library: %UTF8VAL_VERSION_STRING says which header it was built with,
 * this which code runs.
 *
 * Context: Any context.
 * Return: a static string such as "1.1.0".
 */
const char *utf8val_version(void)
{
	return UTF8VAL_VERSION_STRING;
}

UTF8VAL_EXPORT(utf8val_version);
