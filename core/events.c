// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * events.c - the klp:* tracepoints and their sequence numbers, as a
 * module of their own (klp_events.ko) that klp.ko uses
 *
 * A program or perf event attached to a module's tracepoint pins that
 * module.  Here that is this one, which holds no patch state, and not the
 * core: klptop, klp-exporter and perf can stay attached while klp.ko is
 * unloaded and loaded again (the events stop, then go on), and the
 * transition numbers go on from where they were, so a consumer's "events
 * up to seq N are in the state I read" holds across a core reload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/module.h>
#include "core.h"

#define CREATE_TRACE_POINTS
#include "klp_trace.h"

static atomic64_t klp_seq = ATOMIC64_INIT(0);

/**
 * klp_next_seq() - the number of the next transition event
 *
 * Every klp:* event but klp_redirect carries one.  A state change takes
 * its number under klp_mutex, so the numbers follow the order of the
 * changes; a failure that changes nothing takes one wherever it is.
 *
 * Return: the new number, one more than the last one given
 */
u64 klp_next_seq(void)
{
	return atomic64_inc_return(&klp_seq);
}
EXPORT_SYMBOL_GPL(klp_next_seq);

/**
 * klp_last_seq() - the number of the last transition event
 *
 * Read under klp_mutex, every state change numbered up to it is done and
 * none numbered above it has begun.
 *
 * Return: the number klp_next_seq() gave last, 0 before the first event
 */
u64 klp_last_seq(void)
{
	return atomic64_read(&klp_seq);
}
EXPORT_SYMBOL_GPL(klp_last_seq);

EXPORT_TRACEPOINT_SYMBOL_GPL(klp_redirect);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_patch_register);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_patch_unregister);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_patch_enable);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_patch_disable);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_func_push);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_func_pop);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_object);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_patch_replaced);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_callback);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_enable_failed);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_shadow_add);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_shadow_del);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_transition);
EXPORT_TRACEPOINT_SYMBOL_GPL(klp_task_blocked);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("klp: the klp:* tracepoints and their sequence numbers");
