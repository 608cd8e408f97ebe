/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ktt_park.h - what ktt_park's two files share: the sleepers and each
 * side's state (ktt_sleepers.c), and their debugfs files (ktt_debugfs.c)
 */
#ifndef _KTT_PARK_H
#define _KTT_PARK_H

#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include "ktt.h"

struct dentry;

#define KTT_SLEEPERS	3	/* kthreads per side */
#define KTT_PARKERS	4	/* user tasks that park themselves */
#define KTT_LOG_LEN	8192
#define KTT_MAX_VER	100	/* versions counted: the pool's are below */

extern const char * const ktt_core_names[KTT_NR_CORES];
extern const char * const ktt_fn_names[KTT_NR_FNS];

enum ktt_sleeper_state { KTT_IDLE, KTT_CALLING, KTT_PARKED, KTT_RETURNED };
extern const char * const ktt_state_names[];

/**
 * struct ktt_sleeper - a task sent into a function, or parking itself
 * @task:	the kthread (NULL for a user parker)
 * @pid:	the user parker's pid (0: slot free)
 * @core:	its side
 * @fn:		the function it parks in (-1: none asked)
 * @state:	enum ktt_sleeper_state
 * @released:	may leave the function
 * @mod:	the module whose code it is parked in
 * @version:	what that code returns
 * @ret:	what its last call returned
 * @wq:		it waits here, parked or idle
 */
struct ktt_sleeper {
	struct task_struct *task;
	pid_t pid;
	int core;
	int fn;
	int state;
	bool released;
	char mod[MODULE_NAME_LEN];
	int version;
	int ret;
	wait_queue_head_t wq;
};

/**
 * struct ktt_side - what ktt_park holds for one side
 * @target:	its target's functions, if loaded (@lock)
 * @loaded:	@target is valid
 * @mixed:	calls of OUTER that met another INNER
 * @calls:	by function and version: the calls that ran that code
 * @spawned:	what the last "spawn"ed kthread's call returned (-2: none)
 * @spawn_fn:	the function it calls
 * @log:	the callbacks' lines since the last read (@lock)
 * @log_len:	bytes in @log
 * @sleepers:	its sleeper kthreads
 * @dir:	its debugfs directory
 */
struct ktt_side {
	struct ktt_target target;
	bool loaded;
	atomic_t mixed;
	atomic_t calls[KTT_NR_FNS][KTT_MAX_VER];
	atomic_t spawned;
	int spawn_fn;
	char *log;
	size_t log_len;
	struct ktt_sleeper sleepers[KTT_SLEEPERS];
	struct dentry *dir;
};

extern struct ktt {
	spinlock_t lock;
	struct ktt_side side[KTT_NR_CORES];
	struct ktt_sleeper parkers[KTT_PARKERS];
	wait_queue_head_t status_wq;
	struct dentry *dir;
} ktt;

int ktt_park_cmd(int core, int slot, int fn);
void ktt_release(struct ktt_sleeper *s);
int ktt_spawn_cmd(int core, int fn);
int ktt_parkme_cmd(int core, int fn, pid_t pid);
int ktt_unpark_cmd(pid_t pid);
void ktt_debugfs_init(void);
void ktt_debugfs_side(int core);

#endif /* _KTT_PARK_H */
