/* SPDX-License-Identifier: MIT */
/* Running clang, the code generator (accelc-codegen) and the linker:
 * fork/exec with an argv (no shell), output captured into the build log
 * with a size cap, and a deadline after which the whole process group is
 * killed. Hostile sources must not hang or exhaust the caller, so the
 * child also gets resource limits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "accelc-private.h"

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Only async-signal-safe calls: the caller may be multi-threaded. */
#define AS_LIMIT (4ul << 30)

/*
 * Whether the child may get the address-space limit. Not when this
 * process already maps more (sanitizer runtimes reserve terabytes, some
 * GPU stacks too): until exec, the child is a copy of it, and a tool's
 * interceptor that maps memory there would fail and kill the build. Not
 * when the application preloads a tool into its children either.
 */
static bool may_limit_as(void)
{
	unsigned long pages = 0;
	FILE *f;

	if (getenv("LD_PRELOAD"))
		return false;
	f = fopen("/proc/self/statm", "re");
	if (!f)
		return false;
	if (fscanf(f, "%lu", &pages) != 1)
		pages = ~0ul;
	fclose(f);
	return pages < AS_LIMIT / (unsigned long)sysconf(_SC_PAGESIZE) / 2;
}

/*
 * What execve() takes (Linux): each string up to MAX_ARG_STRLEN, 32
 * pages; all strings and pointers of argv and the environment together up
 * to a quarter of the stack limit (_SC_ARG_MAX). Checked before the fork,
 * so that the log says which argument is too long; the child's report of
 * a failed exec covers whatever this misses.
 */
static int check_args(char *const argv[], struct strbuf *log)
{
	size_t per_arg = 32 * (size_t)sysconf(_SC_PAGESIZE);
	long max = sysconf(_SC_ARG_MAX);
	size_t total = 0, n = 0;

	for (; argv[n]; n++) {
		size_t len = strlen(argv[n]);

		if (len >= per_arg) {
			strbuf_printf(log, "error: cannot run %s: argument %zu "
				      "is %zu bytes long, the limit is %zu\n",
				      argv[0], n, len, per_arg - 1);
			return -E2BIG;
		}
		total += len + 1 + sizeof(char *);
	}
	for (char **e = environ; e && *e; e++)
		total += strlen(*e) + 1 + sizeof(char *);
	if (max > 0 && total > (size_t)max) {
		strbuf_printf(log, "error: cannot run %s: its %zu arguments "
			      "and the environment take %zu bytes, the limit "
			      "is %ld\n", argv[0], n, total, max);
		return -E2BIG;
	}
	return 0;
}

/* The child's exec failure, to the parent through a close-on-exec pipe. */
#define ERR_FD 3

static __attribute__((noreturn)) void child_fail(int err)
{
	ssize_t n = write(ERR_FD, &err, sizeof(err));

	(void)n;
	_exit(127);
}

static __attribute__((noreturn)) void child(char *const argv[], int out,
					    int err, uint32_t timeout_ms,
					    bool limit_as)
{
	struct rlimit cpu = { timeout_ms / 1000 + 1, timeout_ms / 1000 + 2 };
	/* an object or bitcode file above this is an attack, not a kernel */
	struct rlimit fsize = { 1ul << 30, 1ul << 30 };
	struct rlimit core = { 0, 0 };
	/*
	 * clang needs a few hundred MiB for any real kernel; a macro bomb
	 * would take the machine's memory before the deadline ends it.
	 */
	struct rlimit as = { AS_LIMIT, AS_LIMIT };
	int null;

	setpgid(0, 0);
	/* a host that closed its stdio may have had the pipes made there */
	out = fcntl(out, F_DUPFD_CLOEXEC, ERR_FD + 1);
	err = fcntl(err, F_DUPFD_CLOEXEC, ERR_FD + 1);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (out < 0 || err < 0 || null < 0 || dup2(null, 0) < 0 ||
	    dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(126);
	/* dup2() clears close-on-exec: set it again */
	if (dup2(err, ERR_FD) < 0 || fcntl(ERR_FD, F_SETFD, FD_CLOEXEC) < 0)
		_exit(126);
	setrlimit(RLIMIT_CPU, &cpu);
	setrlimit(RLIMIT_FSIZE, &fsize);
	setrlimit(RLIMIT_CORE, &core);
	if (limit_as)
		setrlimit(RLIMIT_AS, &as);
	/* fds of the host application that lack O_CLOEXEC stay with it */
	close_range(ERR_FD + 1, ~0u, 0);
	signal(SIGPIPE, SIG_DFL);
	execv(argv[0], argv);
	child_fail(errno);
}

/* Why the child could not exec, if it could not: 0 or a positive errno. */
static int exec_error(int fd)
{
	int err = 0;
	ssize_t n;

	do
		n = read(fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(err) && err > 0 ? err : 0;
}

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

int accelc_spawn(char *const argv[], struct strbuf *log, uint32_t timeout_ms)
{
	int64_t deadline = now_ms() + timeout_ms;
	int pfd[2], efd[2], status, r = 0, err;
	bool timed_out = false, limit_as = may_limit_as();
	pid_t pid;

	r = check_args(argv, log);
	if (r)
		return r;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(efd, O_CLOEXEC) < 0) {
		r = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return r;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(pfd[0]);
		close(pfd[1]);
		close(efd[0]);
		close(efd[1]);
		return r;
	}
	if (pid == 0)
		child(argv, pfd[1], efd[1], timeout_ms, limit_as);
	/* both sides set the group, so a kill never misses it */
	setpgid(pid, pid);
	close(pfd[1]);
	close(efd[1]);

	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int64_t left = deadline - now_ms();
		char buf[4096];
		ssize_t n;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		r = poll(&p, 1, left > 1000 ? 1000 : (int)left);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		n = read(pfd[0], buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break; /* EOF: the child (and its children) closed it */
		strbuf_append(log, buf, (size_t)n);
	}
	close(pfd[0]);
	if (timed_out)
		kill_group(pid);
	/* a child that closed its output but still runs gets the deadline too */
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			r = -errno;
			close(efd[0]);
			return r;
		}
		if (!timed_out && now_ms() >= deadline) {
			timed_out = true;
			kill_group(pid);
		}
		if (w == 0)
			usleep(1000);
	}
	/* the child has exited: the pipe holds its errno or nothing */
	err = exec_error(efd[0]);
	close(efd[0]);
	if (err && !timed_out) {
		strbuf_printf(log, "error: cannot run %s: %s\n", argv[0],
			      strerror(err));
		return -err;
	}
	if (timed_out) {
		strbuf_printf(log, "error: %s killed after %u ms\n", argv[0],
			      timeout_ms);
		return -ETIMEDOUT;
	}
	if (WIFSIGNALED(status)) {
		strbuf_printf(log, "error: %s killed by signal %d\n", argv[0],
			      WTERMSIG(status));
		return WTERMSIG(status) == SIGXCPU ? -ETIMEDOUT : 128 +
			WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}
