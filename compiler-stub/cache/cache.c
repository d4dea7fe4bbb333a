/* SPDX-License-Identifier: MIT */
/* The on-disk program cache: directory, entries, locking, eviction. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "cache.h"

#define ENTRY_MAGIC "ACCELCCH"
#define ENTRY_VERSION 1u
#define ENTRY_HEADER (8 + 4 + 4 + 2 * ACCELC_SHA256_SIZE + 8 + 8)
#define ENTRY_SUFFIX ".bin"
#define TMP_PREFIX ".tmp-"
/* a temporary file this old was left by a crashed writer */
#define TMP_STALE_SEC 3600
/*
 * The entries' total size as the writers counted it (decimal text), so
 * that a store need not list the directory: that costs a stat() per entry,
 * 100 ms with 8600 entries, and a full cache would pay it at every store. Eviction frees down to 4/5 of the cap, so a full cache is listed
 * once per fifth of the cap stored, not once per entry.
 */
#define SIZE_FILE "size"
#define EVICT_KEEP_NUM 4u
#define EVICT_KEEP_DEN 5u

static void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* "123", "64K", "256M", "1G"; 0 if malformed. */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	switch (*end) {
	case 'G': case 'g':
		v <<= 10; /* fall through */
	case 'M': case 'm':
		v <<= 10; /* fall through */
	case 'K': case 'k':
		v <<= 10;
		end++;
		break;
	default:
		break;
	}
	return *end ? 0 : v;
}

/* The directory's path: the option, $ACCEL_CACHE_DIR, XDG, ~/.cache. */
static char *cache_path(const struct accelc_options *o)
{
	const char *env;
	char *p = NULL;

	if (o->cache_dir && *o->cache_dir)
		return strdup(o->cache_dir);
	env = secure_getenv("ACCEL_CACHE_DIR");
	if (env && *env)
		return strdup(env);
	env = secure_getenv("XDG_CACHE_HOME");
	if (env && *env == '/') {
		if (asprintf(&p, "%s/libaccel", env) < 0)
			return NULL;
		return p;
	}
	env = secure_getenv("HOME");
	if (!env || *env != '/')
		return strdup("");
	if (asprintf(&p, "%s/.cache/libaccel", env) < 0)
		return NULL;
	return p;
}

/* mkdir -p, each new level 0700. */
static void make_dirs(char *path)
{
	for (char *s = strchr(path + 1, '/');; s = strchr(s + 1, '/')) {
		if (s)
			*s = '\0';
		mkdir(path, 0700);
		if (!s)
			return;
		*s = '/';
	}
}

/* Ours and nobody else's: what we create and what we trust. */
static bool private_to_us(const struct stat *st, mode_t type)
{
	return (st->st_mode & S_IFMT) == type && st->st_uid == geteuid() &&
	       !(st->st_mode & 077);
}

static bool cache_enabled(const struct accelc_options *o)
{
	const char *env = secure_getenv("ACCEL_CACHE");

	if (o->flags & (ACCELC_FLAG_NO_CACHE | ACCELC_FLAG_KEEP_IR |
			ACCELC_FLAG_KEEP_ASM))
		return false;
	return !env || strcmp(env, "0");
}

int accelc_cache_open(const struct accelc_options *o, struct accelc_cache *c,
		      struct strbuf *log)
{
	struct stat st;
	char *path;
	int fd;

	memset(c, 0, sizeof(*c));
	c->dirfd = c->lockfd = -1;
	if (!cache_enabled(o))
		return 0;
	c->max_size = o->cache_max_size;
	if (!c->max_size)
		c->max_size = parse_size(secure_getenv("ACCEL_CACHE_MAX_SIZE"));
	if (!c->max_size)
		c->max_size = ACCELC_CACHE_DEFAULT_MAX;
	path = cache_path(o);
	if (!path)
		return -ENOMEM;
	if (*path != '/') {
		free(path);
		return 0; /* no home: no cache */
	}
	make_dirs(path);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		/* no writable home, say: no cache, and nothing to report */
		free(path);
		return 0;
	}
	if (fstat(fd, &st) < 0 || !private_to_us(&st, S_IFDIR)) {
		/* someone else could plant entries there: say so */
		strbuf_printf(log, "note: program cache %s not used: not a "
			      "directory private to this user\n", path);
		close(fd);
		free(path);
		return 0;
	}
	free(path);
	c->lockfd = openat(fd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW |
			   O_NONBLOCK | O_CLOEXEC, 0600);
	if (c->lockfd < 0 || fstat(c->lockfd, &st) < 0 ||
	    !private_to_us(&st, S_IFREG)) {
		if (c->lockfd >= 0)
			close(c->lockfd);
		c->lockfd = -1;
		close(fd);
		return 0;
	}
	c->dirfd = fd;
	return 0;
}

void accelc_cache_close(struct accelc_cache *c)
{
	/* closing the lock fd releases the key lock */
	if (c->lockfd >= 0)
		close(c->lockfd);
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->dirfd = c->lockfd = -1;
	c->key_locked = false;
}

static void entry_name(const struct accelc_cache *c, char name[80])
{
	for (int i = 0; i < ACCELC_SHA256_SIZE; i++)
		snprintf(name + 2 * i, 3, "%02x", c->key[i]);
	strcpy(name + 2 * ACCELC_SHA256_SIZE, ENTRY_SUFFIX);
}

static int read_exact(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Check a whole entry; 0 and the payload's parts if it is good. */
static int check_entry(const struct accelc_cache *c, const uint8_t *e,
		       size_t size, size_t *log_len, size_t *data_len)
{
	uint8_t sum[ACCELC_SHA256_SIZE];
	uint64_t ll, dl;

	if (size < ENTRY_HEADER || memcmp(e, ENTRY_MAGIC, 8) ||
	    e[8] != ENTRY_VERSION || e[9] || e[10] || e[11] ||
	    memcmp(e + 16, c->key, ACCELC_SHA256_SIZE))
		return -EINVAL;
	ll = rd64(e + 16 + 2 * ACCELC_SHA256_SIZE);
	dl = rd64(e + 24 + 2 * ACCELC_SHA256_SIZE);
	if (ll > size - ENTRY_HEADER || dl != size - ENTRY_HEADER - ll ||
	    memchr(e + ENTRY_HEADER, '\0', ll))
		return -EINVAL;
	if (accelc_sha256(e + ENTRY_HEADER, size - ENTRY_HEADER, sum) ||
	    memcmp(sum, e + 16 + ACCELC_SHA256_SIZE, sizeof(sum)))
		return -EINVAL;
	*log_len = ll;
	*data_len = dl;
	return 0;
}

int accelc_cache_lookup(struct accelc_cache *c, char **log, void **data,
			size_t *size)
{
	char name[80];
	struct stat st;
	size_t ll, dl;
	uint8_t *e;
	int fd, r;

	if (c->dirfd < 0)
		return -ENOENT;
	entry_name(c, name);
	/*
	 * O_NONBLOCK: a FIFO or device planted under the name would block
	 * the open (and every build of the program) until a writer came;
	 * the type is checked right after, before any read.
	 */
	fd = openat(c->dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
		    O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	/* a foreign or writable-by-others entry may be forged: never load */
	if (fstat(fd, &st) < 0 || !private_to_us(&st, S_IFREG) ||
	    (uint64_t)st.st_size > c->max_size ||
	    (uint64_t)st.st_size < ENTRY_HEADER) {
		close(fd);
		return -ENOENT;
	}
	e = malloc((size_t)st.st_size);
	if (!e) {
		close(fd);
		return -ENOMEM;
	}
	r = read_exact(fd, e, (size_t)st.st_size);
	if (r == 0)
		r = check_entry(c, e, (size_t)st.st_size, &ll, &dl);
	if (r == 0) {
		*log = strndup((char *)e + ENTRY_HEADER, ll);
		*data = malloc(dl);
		if (!*log || !*data) {
			free(*log);
			free(*data);
			r = -ENOMEM;
		} else {
			memcpy(*data, e + ENTRY_HEADER + ll, dl);
			*size = dl;
			/* LRU: a hit makes the entry the youngest */
			futimens(fd, NULL);
		}
	} else {
		/* corrupt or truncated: make room for the rebuild */
		unlinkat(c->dirfd, name, 0);
		r = -ENOENT;
	}
	free(e);
	close(fd);
	return r;
}

void accelc_cache_lock_key(struct accelc_cache *c)
{
	/*
	 * An open-file-description lock on one byte of the lock file per
	 * key: builds of different programs proceed in parallel, and it
	 * works between threads too (each build opens the file itself).
	 */
	struct flock fl = {
		.l_type = F_WRLCK,
		.l_whence = SEEK_SET,
		.l_start = (off_t)(((uint32_t)c->key[0] << 24 |
				    (uint32_t)c->key[1] << 16 |
				    (uint32_t)c->key[2] << 8 | c->key[3]) &
				   0x7fffffff),
		.l_len = 1,
	};

	if (c->lockfd < 0 || c->key_locked)
		return;
	while (fcntl(c->lockfd, F_OFD_SETLKW, &fl) < 0)
		if (errno != EINTR)
			return;
	c->key_locked = true;
}

struct victim {
	struct timespec mtime;
	uint64_t size;
	char name[80];
};

static int by_age(const void *a, const void *b)
{
	const struct victim *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool is_entry_name(const char *n)
{
	size_t len = strlen(n);

	return len == 2 * ACCELC_SHA256_SIZE + strlen(ENTRY_SUFFIX) &&
	       strspn(n, "0123456789abcdef") == 2 * ACCELC_SHA256_SIZE &&
	       !strcmp(n + 2 * ACCELC_SHA256_SIZE, ENTRY_SUFFIX);
}

/*
 * List the entries; if they are above the cap, the oldest go until 4/5 of
 * it is left. Returns the total left, UINT64_MAX if the listing failed.
 */
static uint64_t evict(struct accelc_cache *c)
{
	struct victim *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0, keep;
	struct dirent *de;
	struct stat st;
	int fd = dup(c->dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return UINT64_MAX;
	}
	while ((de = readdir(d))) {
		if (fstatat(c->dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) <
		    0)
			continue;
		if (!strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) &&
		    st.st_mtime + TMP_STALE_SEC < time(NULL)) {
			unlinkat(c->dirfd, de->d_name, 0);
			continue;
		}
		if (!is_entry_name(de->d_name) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			struct victim *nv = realloc(v, (cap = cap ? 2 * cap :
							      64) * sizeof(*v));

			if (!nv) {
				total = UINT64_MAX;
				break;
			}
			v = nv;
		}
		v[n].mtime = st.st_mtim;
		v[n].size = (uint64_t)st.st_size;
		strcpy(v[n].name, de->d_name);
		total += v[n++].size;
	}
	closedir(d);
	keep = c->max_size / EVICT_KEEP_DEN * EVICT_KEEP_NUM;
	if (total != UINT64_MAX && total > c->max_size && v) {
		qsort(v, n, sizeof(*v), by_age);
		for (size_t i = 0; i < n && total > keep; i++)
			if (unlinkat(c->dirfd, v[i].name, 0) == 0)
				total -= v[i].size;
	}
	free(v);
	return total;
}

/* The counted total; UINT64_MAX if there is none we can trust. */
static uint64_t read_total(int fd)
{
	char buf[32], *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	unsigned long long v;

	if (n <= 0)
		return UINT64_MAX;
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end != '\n')
		return UINT64_MAX;
	return v;
}

static void write_total(int fd, uint64_t total)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%llu\n", (unsigned long long)total);

	if (total != UINT64_MAX && pwrite(fd, buf, (size_t)n, 0) == n &&
	    ftruncate(fd, n) == 0)
		return;
	/* unknown: the next store lists the entries */
	if (ftruncate(fd, 0) < 0)
		return;
}

/*
 * Count @added bytes in (under the lock): list and evict only when the
 * count says the cap is passed, or when there is no count yet.
 */
static void account(struct accelc_cache *c, uint64_t added)
{
	struct stat st;
	uint64_t total;
	int fd;

	fd = openat(c->dirfd, SIZE_FILE, O_RDWR | O_CREAT | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0 || fstat(fd, &st) < 0 || !private_to_us(&st, S_IFREG)) {
		if (fd >= 0)
			close(fd);
		evict(c);
		return;
	}
	total = read_total(fd);
	if (total != UINT64_MAX && total <= UINT64_MAX - added)
		total += added;
	else
		total = UINT64_MAX;
	if (total > c->max_size)
		total = evict(c);
	write_total(fd, total);
	close(fd);
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void accelc_cache_store(struct accelc_cache *c, const char *log,
			const void *data, size_t size)
{
	uint8_t h[ENTRY_HEADER] = ENTRY_MAGIC;
	size_t ll = strlen(log ? log : "");
	struct accelc_sha256 sum;
	char tmp[32], name[80];
	int fd = -1, r;

	if (c->dirfd < 0 || ENTRY_HEADER + ll + size > c->max_size)
		return;
	h[8] = ENTRY_VERSION;
	memcpy(h + 16, c->key, ACCELC_SHA256_SIZE);
	le64(h + 16 + 2 * ACCELC_SHA256_SIZE, ll);
	le64(h + 24 + 2 * ACCELC_SHA256_SIZE, size);
	accelc_sha256_init(&sum);
	accelc_sha256_update(&sum, log, ll);
	accelc_sha256_update(&sum, data, size);
	if (accelc_sha256_final(&sum, h + 16 + ACCELC_SHA256_SIZE))
		return;
	/* a name no other writer uses, removed if we fail */
	for (int tries = 0; fd < 0 && tries < 16; tries++) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(tmp, sizeof(tmp), TMP_PREFIX "%x-%lx",
			 (unsigned)getpid(),
			 (unsigned long)(ts.tv_nsec ^ (tries << 20) ^
					 (unsigned long)(uintptr_t)&ts));
		fd = openat(c->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			return;
	}
	if (fd < 0)
		return;
	r = write_all(fd, h, sizeof(h));
	if (!r)
		r = write_all(fd, log, ll);
	if (!r)
		r = write_all(fd, data, size);
	if (close(fd) < 0)
		r = -EIO;
	entry_name(c, name);
	if (r || renameat(c->dirfd, tmp, c->dirfd, name) < 0) {
		unlinkat(c->dirfd, tmp, 0);
		return;
	}
	/* one counting (and evicting) process at a time */
	while (flock(c->lockfd, LOCK_EX) < 0)
		if (errno != EINTR)
			return;
	account(c, ENTRY_HEADER + ll + size);
	flock(c->lockfd, LOCK_UN);
}
