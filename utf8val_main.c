// SPDX-License-Identifier: GPL-2.0
/*
 * utf8val module: the core's validators for other kernel code (exported
 * in utf8val_core.c, next to their definitions), and /dev/utf8val, a UTF-8
 * stream validator for user space and shell scripts.
 *
 * Every open file is its own stream. write() feeds it and fails with
 * -EILSEQ at the first ill-formed subsequence; read() returns one verdict
 * line; ioctl() gives the verdict as a struct, restarts the stream, sets
 * its flags, or validates a buffer in one call. Documentation/utf8val.rst
 * describes the protocol.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/u64_stats_sync.h>
#include <linux/uaccess.h>

#include "utf8val.h"
#include "utf8val_bpf.h"
#include "utf8val_lines.h"
#include "utf8val_simd.h"
#include "uapi/linux/utf8val.h"

/*
 * Verdicts are counted by enum utf8val_error, every one of them; stats_add()
 * takes NO_VERDICT for bytes alone.
 */
#define NR_VERDICTS	UTF8VAL_NR_ERRORS
#define NO_VERDICT	NR_VERDICTS

/*
 * Per-CPU, so that writers on different CPUs never share a cache line;
 * @syncp keeps a reader from seeing half of a 64-bit value on 32-bit
 * kernels. Documentation/ABI/testing/sysfs-class-misc-utf8val says what
 * each counts.
 */
struct utf8val_stats {
	u64_stats_t bytes;
	u64_stats_t verdicts[NR_VERDICTS];
	struct u64_stats_sync syncp;
};

static DEFINE_PER_CPU(struct utf8val_stats, utf8val_stats);

/* One shared count: a sum of per-CPU ones could read -1 mid-update. */
static atomic_long_t open_streams = ATOMIC_LONG_INIT(0);

/*
 * Count @bytes found valid and, unless @verdict is NO_VERDICT, one
 * verdict. Any context but NMI.
 */
static void stats_add(u64 bytes, unsigned int verdict)
{
	struct utf8val_stats *stats = get_cpu_ptr(&utf8val_stats);

	u64_stats_update_begin(&stats->syncp);
	u64_stats_add(&stats->bytes, bytes);
	if (verdict < NR_VERDICTS)
		u64_stats_inc(&stats->verdicts[verdict]);
	u64_stats_update_end(&stats->syncp);
	put_cpu_ptr(&utf8val_stats);
}

/* The longest VALIDATE, as the VFS limits one write(): 2 GiB less a page. */
#define VALIDATE_MAX	MAX_RW_COUNT

/* The longest verdict line, with every number at its widest. */
#define VERDICT_MAX	192

/*
 * @lock serializes the stream's operations, and a write() holds it while
 * it copies from user memory, which user space can make block for as long
 * as it likes (userfaultfd, FUSE). So only interruptible calls take it:
 * flush(), which close() and exit() run, reads @open_tail instead, and
 * VALIDATE, which does not touch the stream, takes nothing.
 */
struct utf8val_file {
	struct mutex lock;	/* the stream's: see above */
	struct utf8val_stream st;
	u8 *bounce;		/* PAGE_SIZE: user bytes pass through here */
	u64 bytes;		/* sum of the write() results */
	struct utf8val_lines lines;	/* of the valid text: the verdict's */
	loff_t read_pos;	/* in the verdict line; a write rewinds it */
	bool counted;		/* the verdict went into the statistics */
	bool open_tail;		/* ends inside a character; read locklessly */
};

static void count_verdict(struct utf8val_file *uf)
{
	enum utf8val_error err = utf8val_stream_result(&uf->st, NULL);

	if (uf->counted || err >= NR_VERDICTS)
		return;
	stats_add(0, err);
	uf->counted = true;
}

/* After every change of the stream, under the lock. */
static void publish_tail(struct utf8val_file *uf)
{
	WRITE_ONCE(uf->open_tail, utf8val_stream_result(&uf->st, NULL) ==
				  UTF8VAL_EINCOMPLETE);
}

static void restart(struct utf8val_file *uf, unsigned int flags)
{
	utf8val_stream_init(&uf->st, flags);
	uf->bytes = 0;
	utf8val_lines_init(&uf->lines);
	uf->read_pos = 0;
	uf->counted = false;
	publish_tail(uf);
}

/* Feed one chunk that starts at stream offset @start, and follow its lines. */
static void feed_chunk(struct utf8val_file *uf, const u8 *buf, size_t len,
		       u64 start)
{
	utf8val_stream_feed(&uf->st, buf, len);
	utf8val_lines_follow(&uf->lines, &uf->st, buf, len, start);
}

/*
 * Feed @len user bytes to the file's stream through its bounce page, a
 * page at a time, yielding the CPU between pages. Stops early at the
 * first error, at a fault (the bytes not copied are not fed) and at a
 * pending signal, as drivers/char/mem.c does. Returns the bytes fed, or
 * a negative errno if none were: -ERESTARTSYS restarts a call
 * interrupted before it began.
 */
static ssize_t feed_from_user(struct utf8val_file *uf,
			      const char __user *ubuf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		size_t n = min_t(size_t, len - done, PAGE_SIZE);
		size_t missed;

		if (signal_pending(current))
			return done ? done : -ERESTARTSYS;
		missed = copy_from_user(uf->bounce, ubuf + done, n);
		n -= missed;
		feed_chunk(uf, uf->bounce, n, uf->bytes + done);
		done += n;
		if (missed)
			return done ? done : -EFAULT;
		if (uf->st.error)
			break;
		cond_resched();
	}
	return done;
}

static int utf8val_open(struct inode *inode, struct file *file)
{
	struct utf8val_file *uf;

	uf = kzalloc(sizeof(*uf), GFP_KERNEL_ACCOUNT);
	if (!uf)
		return -ENOMEM;
	uf->bounce = kmalloc(PAGE_SIZE, GFP_KERNEL_ACCOUNT);
	if (!uf->bounce)
		goto err_free_file;
	mutex_init(&uf->lock);
	restart(uf, 0);
	file->private_data = uf;
	atomic_long_inc(&open_streams);
	return stream_open(inode, file);

err_free_file:
	kfree(uf);
	return -ENOMEM;
}

static int utf8val_release(struct inode *inode, struct file *file)
{
	struct utf8val_file *uf = file->private_data;

	count_verdict(uf);
	atomic_long_dec(&open_streams);
	mutex_destroy(&uf->lock);
	kfree(uf->bounce);
	kfree(uf);
	return 0;
}

/*
 * The full count while the bytes are valid (an open sequence at the end
 * is fine); at the first error, the bytes of this write before the
 * ill-formed subsequence if there are any, else -EILSEQ, and -EILSEQ for
 * every write after that.
 */
static ssize_t utf8val_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct utf8val_file *uf = file->private_data;
	struct utf8val_result res;
	u64 start, valid;
	ssize_t ret;

	if (mutex_lock_interruptible(&uf->lock))
		return -ERESTARTSYS;
	uf->read_pos = 0;
	if (uf->st.error) {
		ret = -EILSEQ;
		goto out_unlock;
	}
	start = uf->bytes;
	utf8val_stream_result(&uf->st, &res);
	valid = res.valid_up_to;
	ret = feed_from_user(uf, ubuf, count);
	if (utf8val_stream_result(&uf->st, &res) > UTF8VAL_EINCOMPLETE) {
		count_verdict(uf);
		if (res.valid_up_to > start)
			ret = res.valid_up_to - start;
		else
			ret = -EILSEQ;
	}
	if (ret > 0)
		uf->bytes += ret;
	/* the statistics count a character once it is complete and valid */
	stats_add(res.valid_up_to - valid, NO_VERDICT);
	publish_tail(uf);
out_unlock:
	mutex_unlock(&uf->lock);
	return ret;
}

/*
 * Closing a stream that ends inside a character reports it. Without the
 * lock: close() and exit() must never wait for a write() that user space
 * keeps blocked in a page fault. A write() still running on another
 * thread is not waited for; its bytes do not count here.
 */
static int utf8val_flush(struct file *file, fl_owner_t id)
{
	struct utf8val_file *uf = file->private_data;

	return READ_ONCE(uf->open_tail) ? -EILSEQ : 0;
}

static void get_verdict(struct utf8val_file *uf, struct utf8val_ioc_verdict *v)
{
	struct utf8val_result res;

	utf8val_stream_result(&uf->st, &res);
	*v = (struct utf8val_ioc_verdict){
		.bytes = uf->bytes,
		.valid_up_to = res.valid_up_to,
		.chars = res.chars,
		.error = res.error,
		.error_len = res.error_len,
		.flags = uf->st.flags,
		.line = uf->lines.line,
		.column = res.chars - uf->lines.line_chars + 1,
	};
}

static int format_verdict(struct utf8val_file *uf, char *buf, size_t size)
{
	struct utf8val_ioc_verdict v;

	get_verdict(uf, &v);
	if (v.error == UTF8VAL_OK)
		return scnprintf(buf, size, "valid bytes=%llu chars=%llu\n",
				 v.bytes, v.chars);
	if (v.error == UTF8VAL_EINCOMPLETE)
		return scnprintf(buf, size,
				 "incomplete bytes=%llu chars=%llu offset=%llu len=%u line=%llu column=%llu\n",
				 v.bytes, v.chars, v.valid_up_to, v.error_len,
				 v.line, v.column);
	return scnprintf(buf, size,
			 "invalid bytes=%llu chars=%llu offset=%llu len=%u error=%s line=%llu column=%llu\n",
			 v.bytes, v.chars, v.valid_up_to, v.error_len,
			 utf8val_error_name(v.error), v.line, v.column);
}

static ssize_t utf8val_read(struct file *file, char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	struct utf8val_file *uf = file->private_data;
	char line[VERDICT_MAX];
	ssize_t ret;
	int len;

	if (mutex_lock_interruptible(&uf->lock))
		return -ERESTARTSYS;
	len = format_verdict(uf, line, sizeof(line));
	ret = simple_read_from_buffer(ubuf, count, &uf->read_pos, line, len);
	mutex_unlock(&uf->lock);
	return ret;
}

/*
 * Validate a user buffer in one call, through a page of its own and
 * without the file's lock: the stream is not involved. Only a fatal
 * signal stops it, as it stops a read() from the page cache; any other
 * waits until it returns, at most VALIDATE_MAX bytes later, so that a
 * program with a profiler's timer still gets its answer.
 */
static long ioctl_validate(void __user *argp)
{
	struct utf8val_ioc_validate req;
	struct utf8val_stream st;
	struct utf8val_result res;
	size_t done, n;
	long ret = 0;
	u8 *buf;

	if (copy_from_user(&req, argp, sizeof(req)))
		return -EFAULT;
	if (req.reserved || (req.flags & ~UTF8VAL_FLAGS_ALL))
		return -EINVAL;
	/* a 32-bit kernel cannot address the upper half */
	if (req.len > VALIDATE_MAX || req.buf != (unsigned long)req.buf)
		return -EINVAL;
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL_ACCOUNT);
	if (!buf)
		return -ENOMEM;
	utf8val_stream_init(&st, req.flags);
	for (done = 0; done < req.len && !st.error; done += n) {
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out_free;
		}
		n = min_t(size_t, req.len - done, PAGE_SIZE);
		if (copy_from_user(buf, u64_to_user_ptr(req.buf) + done, n)) {
			ret = -EFAULT;
			goto out_free;
		}
		utf8val_stream_feed(&st, buf, n);
		cond_resched();
	}
	utf8val_stream_result(&st, &res);
	req.valid_up_to = res.valid_up_to;
	req.chars = res.chars;
	req.error = res.error;
	req.error_len = res.error_len;
	if (copy_to_user(argp, &req, sizeof(req)))
		ret = -EFAULT;
	else
		stats_add(res.valid_up_to, res.error);
out_free:
	kfree(buf);
	return ret;
}

/*
 * The calls on the stream, one handler each, as ntsync's: the argument is
 * copied in and checked before the lock (a bad one never waits), and the
 * answer copied out after it (user memory may block for long).
 */
static long ioctl_get_verdict(struct utf8val_file *uf, void __user *argp)
{
	struct utf8val_ioc_verdict verdict;

	if (mutex_lock_interruptible(&uf->lock))
		return -ERESTARTSYS;
	get_verdict(uf, &verdict);
	mutex_unlock(&uf->lock);
	if (copy_to_user(argp, &verdict, sizeof(verdict)))
		return -EFAULT;
	return 0;
}

static long ioctl_reset(struct utf8val_file *uf)
{
	if (mutex_lock_interruptible(&uf->lock))
		return -ERESTARTSYS;
	count_verdict(uf);
	restart(uf, uf->st.flags);
	mutex_unlock(&uf->lock);
	return 0;
}

static long ioctl_set_flags(struct utf8val_file *uf, void __user *argp)
{
	struct utf8val_ioc_flags fl;

	if (copy_from_user(&fl, argp, sizeof(fl)))
		return -EFAULT;
	if (fl.reserved || (fl.flags & ~UTF8VAL_FLAGS_ALL))
		return -EINVAL;
	if (mutex_lock_interruptible(&uf->lock))
		return -ERESTARTSYS;
	count_verdict(uf);
	restart(uf, fl.flags);
	mutex_unlock(&uf->lock);
	return 0;
}

static long utf8val_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct utf8val_file *uf = file->private_data;
	void __user *argp = (void __user *)arg;

	switch (cmd) {
	case UTF8VAL_IOC_GET_VERDICT:
		return ioctl_get_verdict(uf, argp);
	case UTF8VAL_IOC_RESET:
		return ioctl_reset(uf);
	case UTF8VAL_IOC_SET_FLAGS:
		return ioctl_set_flags(uf, argp);
	case UTF8VAL_IOC_VALIDATE:
		return ioctl_validate(argp);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations utf8val_fops = {
	.owner = THIS_MODULE,
	.open = utf8val_open,
	.release = utf8val_release,
	.read = utf8val_read,
	.write = utf8val_write,
	.flush = utf8val_flush,
	.unlocked_ioctl = utf8val_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/*
 * sysfs: /sys/class/misc/utf8val/{bytes,open_streams,verdicts/<name>},
 * readable by root only: the counts tell what other users validate; and
 * simd_paths, for everyone.
 */

/* A counter summed over all CPUs: @verdict's count, or STATS_BYTES. */
#define STATS_BYTES	(-1)

static u64 stats_sum(int verdict)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct utf8val_stats *stats = per_cpu_ptr(&utf8val_stats,
								cpu);
		const u64_stats_t *counter = verdict == STATS_BYTES ?
			&stats->bytes : &stats->verdicts[verdict];
		unsigned int seq;
		u64 val;

		do {
			seq = u64_stats_fetch_begin(&stats->syncp);
			val = u64_stats_read(counter);
		} while (u64_stats_fetch_retry(&stats->syncp, seq));
		sum += val;
	}
	return sum;
}

static ssize_t bytes_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%llu\n", stats_sum(STATS_BYTES));
}
static DEVICE_ATTR_ADMIN_RO(bytes);

static ssize_t open_streams_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&open_streams));
}
static DEVICE_ATTR_ADMIN_RO(open_streams);

/* Every path utf8val.simd= takes, whether or not this CPU can run it. */
static ssize_t simd_paths_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	int path, len = 0;

	for (path = 0; path < NR_UTF8VAL_PATHS; path++)
		len += sysfs_emit_at(buf, len, "%s%s", path ? " " : "",
				     utf8val_path_name(path));
	return len + sysfs_emit_at(buf, len, "\n");
}
static DEVICE_ATTR_RO(simd_paths);

static struct attribute *stats_attrs[] = {
	&dev_attr_bytes.attr,
	&dev_attr_open_streams.attr,
	&dev_attr_simd_paths.attr,
	NULL,
};

static const struct attribute_group stats_group = {
	.attrs = stats_attrs,
};

struct verdict_attr {
	struct device_attribute attr;
	enum utf8val_error err;
};

static ssize_t verdict_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	const struct verdict_attr *va = container_of(attr, struct verdict_attr,
						     attr);

	return sysfs_emit(buf, "%llu\n", stats_sum(va->err));
}

/*
 * A file for each verdict, named as the device's read() names it
 * (utf8val_error_name(), but "valid"), filled in at init. Not one for
 * UTF8VAL_EFLAGS: the device refuses unknown flags before validating.
 */
static struct verdict_attr verdict_attrs[NR_VERDICTS];
static struct attribute *verdict_attr_ptrs[NR_VERDICTS + 1];	/* NULL-ended */

static void __init verdict_attrs_init(void)
{
	int err, n = 0;

	for (err = 0; err < NR_VERDICTS; err++) {
		struct verdict_attr *va = &verdict_attrs[err];

		if (err == UTF8VAL_EFLAGS)
			continue;
		va->err = err;
		va->attr.attr.name = err ? utf8val_error_name(err) : "valid";
		va->attr.attr.mode = 0400;
		va->attr.show = verdict_show;
		verdict_attr_ptrs[n++] = &va->attr.attr;
	}
}

static const struct attribute_group verdicts_group = {
	.name = "verdicts",
	.attrs = verdict_attr_ptrs,
};

static const struct attribute_group *utf8val_groups[] = {
	&stats_group,
	&verdicts_group,
	NULL,
};

static struct miscdevice utf8val_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "utf8val",
	.fops = &utf8val_fops,
	.groups = utf8val_groups,
	.mode = 0666,	/* validation grants nothing */
};

/*
 * utf8val.simd=: the validation path, "auto" (the best the CPU has) or one
 * by name for testing. Reading it gives the path in use; a path the CPU
 * lacks falls back to the scalar one.
 *
 * The load's value is chosen in init, not when it is parsed: built into
 * the kernel, the module's parameters are parsed before the kernel knows
 * the CPU's vector features (and which registers it saves), and a choice
 * made then would be scalar. Both run under kernel_param_lock().
 */
static int simd_wanted = -1;	/* the load's path; -1: auto */
static bool utf8val_loaded;	/* init has run: a write, not the load */

static int simd_param_set(const char *val, const struct kernel_param *kp)
{
	int path;

	for (path = -1; val && path < NR_UTF8VAL_PATHS; path++) {
		if (sysfs_streq(val, path < 0 ? "auto" :
				utf8val_path_name(path))) {
			if (utf8val_loaded)
				utf8val_simd_select(path);
			else
				simd_wanted = path;
			return 0;
		}
	}
	/*
	 * A write names a path of this build or is refused. At load, a
	 * modprobe.d line or command line shared with another architecture
	 * (or a bare "simd") must not keep the module from loading: "auto",
	 * and a warning.
	 */
	if (utf8val_loaded)
		return -EINVAL;
	pr_warn("simd=%s: no such path here (simd_paths lists them); auto\n",
		val ? val : "");
	simd_wanted = -1;
	return 0;
}

static int simd_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  utf8val_path_name(utf8val_simd_path()));
}

static const struct kernel_param_ops simd_param_ops = {
	.flags = KERNEL_PARAM_OPS_FL_NOARG,	/* "simd" alone: set() says */
	.set = simd_param_set,
	.get = simd_param_get,
};

module_param_cb(simd, &simd_param_ops, NULL, 0644);
MODULE_PARM_DESC(simd, "validation path: auto, or one named in /sys/class/misc/utf8val/simd_paths (reads back the one in use)");

static int __init utf8val_init(void)
{
	enum utf8val_path path;
	bool lacking;
	int cpu, err;

	/* The UAPI structs must not depend on the ABI's alignment rules. */
	BUILD_BUG_ON(sizeof(struct utf8val_ioc_verdict) != 56);
	BUILD_BUG_ON(sizeof(struct utf8val_ioc_flags) != 8);
	BUILD_BUG_ON(sizeof(struct utf8val_ioc_validate) != 48);

	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(&utf8val_stats, cpu)->syncp);
	verdict_attrs_init();
	/* the load's parameters are set: from here on a write is a write */
	kernel_param_lock(THIS_MODULE);
	utf8val_loaded = true;
	/*
	 * A path named at load (a modprobe.d line) that this CPU cannot run:
	 * auto's, as for a name this build lacks, and a warning. The line may
	 * be shared with other machines or outlive the CPU it was chosen on
	 * (AVX-512 needs VBMI since 1.1). A write at run time takes what
	 * utf8val_simd_select() gives, and reads back the path it got.
	 */
	path = utf8val_simd_select(simd_wanted);
	lacking = simd_wanted >= 0 && (int)path != simd_wanted;
	if (lacking)
		path = utf8val_simd_select(-1);
	kernel_param_unlock(THIS_MODULE);
	if (lacking)
		pr_warn("simd=%s: this CPU cannot run that path (utf8val(4) says what each needs); auto: %s\n",
			utf8val_path_name(simd_wanted), utf8val_path_name(path));
	pr_debug("validation path: %s\n", utf8val_path_name(path));
	/* first: the kernel cannot take kfuncs back, only drop the module's */
	err = utf8val_bpf_init();
	if (err)
		return err;
	return misc_register(&utf8val_misc);
}

static void __exit utf8val_exit(void)
{
	misc_deregister(&utf8val_misc);
}

module_init(utf8val_init);
module_exit(utf8val_exit);

MODULE_DESCRIPTION("Strict UTF-8 validation (RFC 3629) for kernel code and user space");
MODULE_VERSION(UTF8VAL_VERSION_STRING);
MODULE_INFO(kfuncs, UTF8VAL_KFUNCS_INFO);
MODULE_LICENSE("GPL");
