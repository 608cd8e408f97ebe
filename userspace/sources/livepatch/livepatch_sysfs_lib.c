// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * livepatch_sysfs_lib.c - whether the builtin livepatch has a patch
 */
#include <dirent.h>
#include "livepatch_sysfs.h"

/* Whether /sys/kernel/livepatch holds a patch (one directory each). */
bool lp_sysfs_has_patches(void)
{
	DIR *dir = opendir(LP_SYSFS_ROOT);
	struct dirent *de;
	bool any = false;

	if (!dir)
		return false;
	while (!any && (de = readdir(dir)))
		any = de->d_name[0] != '.';
	closedir(dir);
	return any;
}
