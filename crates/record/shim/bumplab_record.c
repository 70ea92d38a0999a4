/*
 * bumplab_record.c: an LD_PRELOAD shim that logs a process's malloc-family
 * calls, for `bumplab-record` to turn into a Bump Lab program.
 *
 *   cc -shared -fPIC -O2 -o libbumplab_record.so bumplab_record.c -ldl -pthread
 *   BUMPLAB_RECORD_DIR=/tmp/rec LD_PRELOAD=$PWD/libbumplab_record.so jq . file.json
 *   bumplab-record convert /tmp/rec/bumplab-<pid>.log > program.txt
 *
 * (`bumplab-record run -- CMD ...` does all three.)
 *
 * It replaces malloc, calloc, realloc, free, aligned_alloc, posix_memalign,
 * memalign, valloc and pvalloc; C++'s operator new and delete reach it
 * through them (libstdc++ implements them with malloc and free). Each call
 * goes to the next definition (glibc's, or whatever allocator the program
 * links), and what it returned is logged: one text line per call, in the
 * format `crates/record/src/shim_log.rs` documents.
 *
 * Environment:
 *   BUMPLAB_RECORD_DIR      directory for the logs (default: the current
 *                           one); each process writes bumplab-<pid>.log
 *                           (bumplab-<pid>-2.log, ... after an exec), made
 *                           when the process starts, so a process that
 *                           loaded the shim always leaves a log
 *   BUMPLAB_RECORD_MAX_OPS  stop logging after this many calls (default
 *                           1000000, the playground's limit), saying so on
 *                           stderr once
 *
 * What keeps it safe inside a real program:
 * - No allocation in the hooks: lines are formatted by hand into a static
 *   buffer and written with write(2).
 * - dlsym may allocate (calloc) while the real functions are being looked
 *   up: those requests are served from a static bootstrap buffer, and their
 *   frees are ignored.
 * - Threads: one mutex, held across the real call and its log line, so the
 *   log is in the allocator's own order (no thread can be handed an address
 *   another thread's free released before that free is logged).
 * - Recursion: a thread-local flag; a call made while the shim is working on
 *   the same thread goes straight to the real function, unlogged.
 * - fork: the child starts a log of its own (pthread_atfork); exec starts a
 *   fresh image, which opens a fresh log.
 * - errno: the hooks leave errno as the real function set it.
 * The log is flushed when the buffer fills, at exit (a destructor), and
 * before the process leaves by a way that runs no destructor: the exec
 * family (the log ends "# exec PATH", then the new image logs on), _exit,
 * _Exit and abort ("# end _exit", "# end abort"). Only a process killed by a
 * signal loses what was still buffered; its log then has no end mark, and
 * the program's header says so.
 *
 * The executable's path is written with every byte outside printable ASCII,
 * and '%', as %XX: a path may hold a newline, and the log is one record a
 * line (format 2; format 1 wrote the path as it was).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *(*malloc_fn)(size_t);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void (*free_fn)(void *);
typedef void *(*align_size_fn)(size_t, size_t);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef void (*exit_fn)(int);
typedef void (*abort_fn)(void);

static malloc_fn real_malloc;
static calloc_fn real_calloc;
static realloc_fn real_realloc;
static free_fn real_free;
static align_size_fn real_aligned_alloc;
static align_size_fn real_memalign;
static posix_memalign_fn real_posix_memalign;
static malloc_fn real_valloc;
static malloc_fn real_pvalloc;
static execve_fn real_execve;
static execve_fn real_execvpe;
static fexecve_fn real_fexecve;
static exit_fn real_exit;
static exit_fn real_Exit;
static abort_fn real_abort;

/* ---- Bootstrap: what dlsym allocates before the real functions are known. */

static _Alignas(64) unsigned char boot[16384];
static size_t boot_used;
static int resolving;

/* Each bootstrap block keeps its size in the 8 bytes before it, for a
 * realloc that moves it out. */
static void *boot_alloc(size_t size, size_t align) {
    if (align < 16) align = 16;
    if (size > sizeof boot || align > sizeof boot) return NULL;
    size_t start = (boot_used + 8 + align - 1) & ~(align - 1);
    if (start > sizeof boot - size) return NULL;
    memcpy(boot + start - 8, &size, sizeof size);
    boot_used = start + size;
    return boot + start; /* zeroed: the buffer is static and never reused */
}

static int in_boot(const void *p) {
    return (const unsigned char *)p >= boot && (const unsigned char *)p < boot + sizeof boot;
}

static size_t boot_size(const void *p) {
    size_t size;
    memcpy(&size, (const unsigned char *)p - 8, sizeof size);
    return size;
}

/* Looks the real functions up. Runs in the constructor, or earlier from the
 * first hook a library's own initialiser calls, before any thread exists. */
static void resolve(void) {
    resolving = 1;
    real_free = (free_fn)dlsym(RTLD_NEXT, "free");
    real_malloc = (malloc_fn)dlsym(RTLD_NEXT, "malloc");
    real_calloc = (calloc_fn)dlsym(RTLD_NEXT, "calloc");
    real_realloc = (realloc_fn)dlsym(RTLD_NEXT, "realloc");
    real_aligned_alloc = (align_size_fn)dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = (align_size_fn)dlsym(RTLD_NEXT, "memalign");
    real_posix_memalign = (posix_memalign_fn)dlsym(RTLD_NEXT, "posix_memalign");
    real_valloc = (malloc_fn)dlsym(RTLD_NEXT, "valloc");
    real_pvalloc = (malloc_fn)dlsym(RTLD_NEXT, "pvalloc");
    real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
    real_execvpe = (execve_fn)dlsym(RTLD_NEXT, "execvpe");
    real_fexecve = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
    real_exit = (exit_fn)dlsym(RTLD_NEXT, "_exit");
    real_Exit = (exit_fn)dlsym(RTLD_NEXT, "_Exit");
    real_abort = (abort_fn)dlsym(RTLD_NEXT, "abort");
    resolving = 0;
}

/* ---- The log. Everything below is touched only with `lock` held. */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int busy __attribute__((tls_model("initial-exec")));

static char buf[1 << 16];
static size_t buf_len;
static int fd = -1;
/* stopped: at the op limit; broken: no log file could be created. */
static int started, configured, stopped, broken, exiting;
static unsigned long long ops, max_ops = 1000000;
static const char *dir = ".";
static char exe[4096];
static pid_t pid;
/* The header or an exec line: a path of 4095 bytes, each at most 3 escaped. */
static char long_line[3 * 4096 + 64];

static void say(const char *s) {
    ssize_t r = write(2, s, strlen(s));
    (void)r;
}

static void say_number(unsigned long long v) {
    char digits[24];
    size_t i = sizeof digits;
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    ssize_t r = write(2, digits + i, sizeof digits - i);
    (void)r;
}

/* The C library's getenv reads `environ` without allocating. */
static void configure(void) {
    if (configured) return;
    configured = 1;
    const char *d = getenv("BUMPLAB_RECORD_DIR");
    if (d && *d) dir = d;
    const char *m = getenv("BUMPLAB_RECORD_MAX_OPS");
    if (m && *m) {
        unsigned long long v = 0;
        for (; *m >= '0' && *m <= '9'; m++) v = v * 10 + (unsigned long long)(*m - '0');
        max_ops = v;
    }
}

static void append(char **at, const char *s) {
    while (*s) *(*at)++ = *s++;
}

static void append_dec(char **at, unsigned long long v) {
    char digits[24];
    size_t i = sizeof digits;
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (i < sizeof digits) *(*at)++ = digits[i++];
}

/* A path as the log writes it: %XX for '%' and every byte outside
 * printable ASCII, so a newline in it cannot end its line. */
static void append_escaped(char **at, const char *s) {
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c >= 0x7f || c == '%') {
            *(*at)++ = '%';
            *(*at)++ = "0123456789abcdef"[c >> 4];
            *(*at)++ = "0123456789abcdef"[c & 15];
        } else {
            *(*at)++ = (char)c;
        }
    }
}

static void append_hex(char **at, unsigned long long v) {
    char digits[20];
    size_t i = sizeof digits;
    do {
        digits[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    while (i < sizeof digits) *(*at)++ = digits[i++];
}

static void open_log(void) {
    char path[4200];
    size_t d = strlen(dir);
    if (d > 4000) d = 4000;
    for (unsigned n = 1; n < 100; n++) {
        char *at = path;
        memcpy(at, dir, d);
        at += d;
        append(&at, "/bumplab-");
        append_dec(&at, (unsigned long long)pid);
        if (n > 1) {
            append(&at, "-");
            append_dec(&at, n);
        }
        append(&at, ".log");
        *at = 0;
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST) break;
    }
    if (fd < 0) {
        say("bumplab-record: cannot create a log in BUMPLAB_RECORD_DIR=");
        say(dir);
        say(": this process is not recorded\n");
        broken = 1;
    }
}

static void flush(void) {
    configure();
    if (fd < 0 && !broken) open_log();
    size_t done = 0;
    while (fd >= 0 && done < buf_len) {
        ssize_t r = write(fd, buf + done, buf_len - done);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        done += (size_t)r;
    }
    buf_len = 0;
}

/* Appends one line (at most sizeof long_line bytes) to the buffer, flushing
 * first when it might not fit. */
static void put_line(const char *line, size_t n) {
    if (buf_len + n > sizeof buf) flush();
    memcpy(buf + buf_len, line, n);
    buf_len += n;
    if (exiting) flush();
}

static void start(void) {
    if (started) return;
    started = 1;
    pid = getpid();
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    char *at = long_line;
    append(&at, "# bumplab-record shim log 2\n# pid ");
    append_dec(&at, (unsigned long long)pid);
    append(&at, "\n# exe ");
    append_escaped(&at, exe);
    append(&at, "\n");
    put_line(long_line, (size_t)(at - long_line));
}

/* Counts one call against the limit; 0 once the limit is reached. */
static int count(void) {
    start();
    if (stopped || broken) return 0;
    if (ops >= max_ops) {
        configure();
        stopped = 1;
        char line[40];
        char *at = line;
        append(&at, "! limit ");
        append_dec(&at, max_ops);
        append(&at, "\n");
        put_line(line, (size_t)(at - line));
        say("bumplab-record: stopped recording ");
        say(exe);
        say(" (pid ");
        say_number((unsigned long long)pid);
        say(") at its op limit of ");
        say_number(max_ops);
        say(" calls (BUMPLAB_RECORD_MAX_OPS); the rest of the run goes unrecorded\n");
        return 0;
    }
    ops++;
    return 1;
}

static void log_alloc(const void *p, size_t size, size_t align) {
    if (!count()) return;
    char line[100];
    char *at = line;
    append(&at, "a ");
    append_hex(&at, (uintptr_t)p);
    append(&at, " ");
    append_dec(&at, size);
    append(&at, " ");
    append_dec(&at, align);
    append(&at, "\n");
    put_line(line, (size_t)(at - line));
}

static void log_realloc(const void *old, const void *new, size_t size) {
    if (!count()) return;
    char line[100];
    char *at = line;
    append(&at, "r ");
    append_hex(&at, (uintptr_t)old);
    append(&at, " ");
    append_hex(&at, (uintptr_t)new);
    append(&at, " ");
    append_dec(&at, size);
    append(&at, "\n");
    put_line(line, (size_t)(at - line));
}

static void log_free(const void *p) {
    if (!count()) return;
    char line[40];
    char *at = line;
    append(&at, "f ");
    append_hex(&at, (uintptr_t)p);
    append(&at, "\n");
    put_line(line, (size_t)(at - line));
}

/* Brackets a logged call: the thread is busy (so a nested call goes straight
 * through) and holds the lock. errno is saved after the real call and put
 * back after logging, which may write. */
#define ENTER                      \
    busy = 1;                      \
    pthread_mutex_lock(&lock)
#define LEAVE(saved_errno)         \
    pthread_mutex_unlock(&lock);   \
    busy = 0;                      \
    errno = (saved_errno)

/* ---- fork: the child keeps the parent's heap but logs into a file of its
 * own, starting empty (what the parent had buffered is the parent's). */

static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&lock); }
static void after_fork_child(void) {
    if (fd >= 0) close(fd);
    fd = -1;
    buf_len = 0;
    ops = 0;
    started = 0;
    exiting = 0;
    stopped = 0;
    /* The forking thread holds the lock and is the child's only thread. */
    pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void shim_init(void) {
    if (!real_malloc) resolve();
    pthread_mutex_lock(&lock);
    configure();
    /* The log is made now, not at the first flush: a process that ends
     * before it fills the buffer still leaves one, saying who it was. */
    start();
    flush();
    pthread_mutex_unlock(&lock);
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

__attribute__((destructor)) static void shim_fini(void) {
    pthread_mutex_lock(&lock);
    start();
    put_line("# end\n", 6);
    flush();
    exiting = 1;
    pthread_mutex_unlock(&lock);
}

/* ---- The hooks. */

void *malloc(size_t size) {
    if (!real_malloc) {
        if (resolving) return boot_alloc(size, 16);
        resolve();
    }
    if (busy) return real_malloc(size);
    ENTER;
    void *p = real_malloc(size);
    int e = errno;
    if (p) log_alloc(p, size, 0);
    LEAVE(e);
    return p;
}

void *calloc(size_t n, size_t size) {
    if (!real_calloc) {
        if (resolving) return n && size > (size_t)-1 / n ? NULL : boot_alloc(n * size, 16);
        resolve();
    }
    if (busy) return real_calloc(n, size);
    ENTER;
    void *p = real_calloc(n, size);
    int e = errno;
    /* Non-null only if n * size did not overflow. */
    if (p) log_alloc(p, n * size, 0);
    LEAVE(e);
    return p;
}

void free(void *p) {
    if (!p || in_boot(p)) return;
    if (!real_free) {
        if (resolving) return; /* only the bootstrap buffer exists yet */
        resolve();
    }
    if (busy) {
        real_free(p);
        return;
    }
    int e = errno;
    ENTER;
    log_free(p);
    real_free(p);
    LEAVE(e);
}

void *realloc(void *p, size_t size) {
    if (p && in_boot(p)) {
        /* Moved out of the bootstrap buffer: logged as a new block. */
        void *q = malloc(size);
        size_t old = boot_size(p);
        if (q) memcpy(q, p, old < size ? old : size);
        return q;
    }
    if (!real_realloc) {
        if (resolving) return boot_alloc(size, 16);
        resolve();
    }
    if (busy) return real_realloc(p, size);
    ENTER;
    void *q = real_realloc(p, size);
    int e = errno;
    /* A null result with p is realloc(p, 0) freeing p, or a failure that
     * left p alone: the log says which by the size. */
    if (p || q) log_realloc(p, q, size);
    LEAVE(e);
    return q;
}

static void *aligned(align_size_fn real, size_t align, size_t size) {
    if (busy) return real(align, size);
    ENTER;
    void *p = real(align, size);
    int e = errno;
    if (p) log_alloc(p, size, align);
    LEAVE(e);
    return p;
}

void *aligned_alloc(size_t align, size_t size) {
    if (!real_aligned_alloc) {
        if (resolving) return boot_alloc(size, align);
        resolve();
    }
    return aligned(real_aligned_alloc, align, size);
}

void *memalign(size_t align, size_t size) {
    if (!real_memalign) {
        if (resolving) return boot_alloc(size, align);
        resolve();
    }
    return aligned(real_memalign, align, size);
}

int posix_memalign(void **out, size_t align, size_t size) {
    if (!real_posix_memalign) {
        if (resolving) {
            *out = boot_alloc(size, align);
            return *out ? 0 : ENOMEM;
        }
        resolve();
    }
    if (busy) return real_posix_memalign(out, align, size);
    ENTER;
    int r = real_posix_memalign(out, align, size);
    int e = errno;
    if (r == 0) log_alloc(*out, size, align);
    LEAVE(e);
    return r;
}

void *valloc(size_t size) {
    if (!real_valloc) {
        if (resolving) return boot_alloc(size, 4096);
        resolve();
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (busy) return real_valloc(size);
    ENTER;
    void *p = real_valloc(size);
    int e = errno;
    if (p) log_alloc(p, size, page);
    LEAVE(e);
    return p;
}

void *pvalloc(size_t size) {
    if (!real_pvalloc) {
        if (resolving) return boot_alloc(size, 4096);
        resolve();
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (busy) return real_pvalloc(size);
    ENTER;
    void *p = real_pvalloc(size);
    int e = errno;
    /* pvalloc hands out whole pages: the block is the rounded size. */
    if (p) log_alloc(p, (size + page - 1) / page * page, page);
    LEAVE(e);
    return p;
}

/* ---- Leaving without destructors: exec, _exit, _Exit, abort.
 *
 * Each writes what is buffered and a last line saying how the process left,
 * then calls the real function. A vfork child (it shares the parent's
 * memory, so getpid() differs from the pid this image logs as) must not
 * touch the parent's log: it goes straight through. The lock is held across
 * an exec, so no other thread logs a call the new image would lose; if the
 * exec fails it returns, and logging goes on. */

/* The real functions, looked up at once if a program leaves before the
 * constructor ran (a library's initialiser calling _exit). */
static void resolved(void) {
    if (!real_malloc && !resolving) resolve();
}

static int own_process(void) { return started && getpid() == pid; }

/* Writes "# exec PATH" (or "# exec fd N") and flushes, with the lock held
 * and the thread marked busy until `after_exec`. */
static void before_exec(const char *path, int exec_fd) {
    busy = 1;
    pthread_mutex_lock(&lock);
    char *at = long_line;
    append(&at, "# exec ");
    if (path) {
        char shown[4096];
        size_t n = strlen(path);
        if (n > sizeof shown - 1) n = sizeof shown - 1;
        memcpy(shown, path, n);
        shown[n] = 0;
        append_escaped(&at, shown);
    } else {
        append(&at, "fd ");
        append_dec(&at, (unsigned long long)exec_fd);
    }
    append(&at, "\n");
    put_line(long_line, (size_t)(at - long_line));
    flush();
}

/* The exec failed and returned: the process goes on, and so does its log. */
static void after_exec(int saved_errno) {
    const char failed[] = "# exec-failed\n";
    put_line(failed, sizeof failed - 1);
    pthread_mutex_unlock(&lock);
    busy = 0;
    errno = saved_errno;
}

int execve(const char *path, char *const argv[], char *const envp[]) {
    resolved();
    if (busy || !own_process()) return real_execve(path, argv, envp);
    before_exec(path, -1);
    int r = real_execve(path, argv, envp);
    after_exec(errno);
    return r;
}

int execvpe(const char *file, char *const argv[], char *const envp[]) {
    resolved();
    if (busy || !own_process()) return real_execvpe(file, argv, envp);
    before_exec(file, -1);
    int r = real_execvpe(file, argv, envp);
    after_exec(errno);
    return r;
}

int fexecve(int exec_fd, char *const argv[], char *const envp[]) {
    resolved();
    if (busy || !own_process()) return real_fexecve(exec_fd, argv, envp);
    before_exec(NULL, exec_fd);
    int r = real_fexecve(exec_fd, argv, envp);
    after_exec(errno);
    return r;
}

extern char **environ;

int execv(const char *path, char *const argv[]) { return execve(path, argv, environ); }

int execvp(const char *file, char *const argv[]) { return execvpe(file, argv, environ); }

/* The list forms: their arguments gathered into an array on the stack. */
#define GATHER_ARGS(first, last_arg)                                  \
    va_list count_args;                                              \
    va_start(count_args, last_arg);                                  \
    size_t argc = 1;                                                 \
    while (va_arg(count_args, char *)) argc++;                       \
    va_end(count_args);                                              \
    char *argv[argc + 1];                                            \
    va_list args;                                                    \
    va_start(args, last_arg);                                        \
    argv[0] = (char *)(first);                                       \
    for (size_t i = 1; i <= argc; i++) argv[i] = va_arg(args, char *);

int execl(const char *path, const char *arg, ...) {
    GATHER_ARGS(arg, arg);
    va_end(args);
    return execve(path, argv, environ);
}

int execlp(const char *file, const char *arg, ...) {
    GATHER_ARGS(arg, arg);
    va_end(args);
    return execvpe(file, argv, environ);
}

int execle(const char *path, const char *arg, ...) {
    GATHER_ARGS(arg, arg);
    char **envp = va_arg(args, char **);
    va_end(args);
    return execve(path, argv, envp);
}

/* Writes "# end HOW" and what is buffered, for a process leaving now. */
static void ending(const char *how) {
    if (!own_process()) return;
    if (!busy) pthread_mutex_lock(&lock);
    char *at = long_line;
    append(&at, "# end ");
    append(&at, how);
    append(&at, "\n");
    put_line(long_line, (size_t)(at - long_line));
    flush();
    exiting = 1;
    if (!busy) pthread_mutex_unlock(&lock);
}

void _exit(int status) {
    resolved();
    ending("_exit");
    real_exit(status);
    __builtin_unreachable();
}

void _Exit(int status) {
    resolved();
    ending("_exit");
    real_Exit(status);
    __builtin_unreachable();
}

void abort(void) {
    resolved();
    ending("abort");
    real_abort();
    __builtin_unreachable();
}
