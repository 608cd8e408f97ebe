// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klp-exporter_options.c - the command line, checked whole before anything
 *
 * Every value is parsed here, the listen address too, and every option
 * is checked against the mode it belongs to (--once prints and exits;
 * the HTTP endpoint; the textfile): an option that would be ignored is
 * refused, naming it, and a refused command line has changed nothing
 * (exit 64, as argp_usage()).
 */
#include <argp.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include "klp-exporter.h"
#include "version.h"

/* "klp-exporter VERSION (revision REVISION)" */
const char *ex_version(void)
{
	return "klp-exporter " KLP_VERSION " (revision " KLP_REVISION ")";
}

/* --version: ex_version() */
static void print_version(FILE *f, struct argp_state *state)
{
	fprintf(f, "%s\n", ex_version());
}

void (*argp_program_version_hook)(FILE *, struct argp_state *) = print_version;
static const char doc[] =
"Serve the klp live patching core's state and counters as Prometheus\n"
"metrics: over HTTP (GET /metrics), as a node_exporter textfile, or both.\n"
"\n"
"USAGE: klp-exporter [-l ADDRESS:PORT] [-t FILE [-i SECONDS]] [COLLECTORS] [-v]\n"
"       klp-exporter --no-http -t FILE [-i SECONDS] [COLLECTORS] [-v]\n"
"       klp-exporter --once [--format FORMAT] [COLLECTORS] [-v]\n"
"COLLECTORS: all by default; --no-collector.calls leaves out the calls.\n"
"\n"
"The HTTP endpoint listens on " EX_DEFAULT_LISTEN " (loopback) unless -l says\n"
"otherwise: IPv4 a.b.c.d:PORT, IPv6 [addr]:PORT, every address of both\n"
"(dual-stack) :PORT or [::]:PORT; port 0 picks a free one.  It says where\n"
"it listens, the textfile and the live patching cores found in one line\n"
"on stderr at start.  On SIGTERM or SIGINT it removes the textfile it\n"
"wrote (if it is still that file) and exits 0.  Needs what klptop needs: root, or CAP_BPF,\n"
"CAP_PERFMON and read access to debugfs klp/state.\n"
"\n"
"EXAMPLES:\n"
"    klp-exporter                          # http://127.0.0.1:9873/metrics\n"
"    klp-exporter -l :9873                 # reachable from other hosts\n"
"    klp-exporter --no-http -t /var/lib/prometheus/node-exporter/klp.prom\n"
"    klp-exporter --once --format text | promtool check metrics\n";

enum {
	OPT_NO_HTTP = 0x100,
	OPT_ONCE,
	OPT_FORMAT,
	OPT_NO_CALLS,
};

/* What was given, for the checks between options. */
enum {
	GIVEN_LISTEN	= 1 << 0,
	GIVEN_NO_HTTP	= 1 << 1,
	GIVEN_TEXTFILE	= 1 << 2,
	GIVEN_INTERVAL	= 1 << 3,
	GIVEN_ONCE	= 1 << 4,
	GIVEN_FORMAT	= 1 << 5,
};

static const struct argp_option opts[] = {
	{ "listen", 'l', "ADDRESS:PORT", 0, "Serve HTTP here (default " EX_DEFAULT_LISTEN "; :PORT for every address, IPv4 and IPv6)", 0 },
	{ "no-http", OPT_NO_HTTP, NULL, 0, "No HTTP endpoint (with -t)", 0 },
	{ "textfile", 't', "FILE", 0, "Also write the metrics to FILE (node_exporter's textfile collector: a .prom file), replaced atomically", 0 },
	{ "interval", 'i', "SECONDS", 0, "With -t: seconds between textfile writes, default 15", 0 },
	{ "once", OPT_ONCE, NULL, 0, "Print the metrics once to stdout and exit", 0 },
	{ "format", OPT_FORMAT, "FORMAT", 0, "With --once: openmetrics (default) or text", 0 },
	{ "no-collector.calls", OPT_NO_CALLS, NULL, 0, "Count no redirected call: state, winners and transitions only, no probe and no cost per call (doc/metrics.md, \"Collectors\")", 0 },
	{ "verbose", 'v', NULL, 0, "Verbose debug output (libbpf)", 0 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show the full help", 0 },
	{},
};

/* getaddrinfo() of a numeric host of one family, the port set after */
static bool numeric(const char *host, int family, struct ex_listen *l)
{
	struct addrinfo hints = {
		.ai_family = family,
		.ai_flags = AI_NUMERICHOST | AI_PASSIVE,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *ai;

	if (getaddrinfo(host, NULL, &hints, &ai))
		return false;
	memcpy(&l->addr, ai->ai_addr, ai->ai_addrlen);
	l->addr_len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return true;
}

/*
 * "ADDRESS:PORT": a.b.c.d:PORT, [IPv6]:PORT, or :PORT for every address
 * (IPv6's any, dual-stack); PORT 0 to 65535, 0 for any free port.
 * Returns 0, or -EINVAL with why it is not one in @why.
 */
static int parse_listen(const char *arg, struct ex_listen *l, char *why,
			size_t n)
{
	const char *colon = strrchr(arg, ':');
	char host[128], *end;
	size_t len;
	long port;

	memset(l, 0, sizeof(*l));
	l->text = arg;
	if (!colon)
		goto no_port;
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (!colon[1]) {
		snprintf(why, n, "no port after the ':'");
		return -EINVAL;
	}
	if (!isdigit((unsigned char)colon[1]) || *end) {
		snprintf(why, n, "'%s' is not a port number", colon + 1);
		return -EINVAL;
	}
	if (errno || port > 65535) {
		snprintf(why, n, "port out of range (1-65535, or 0 for any)");
		return -EINVAL;
	}
	len = colon - arg;
	if (len >= sizeof(host)) {
		snprintf(why, n, "the address is too long");
		return -EINVAL;
	}
	memcpy(host, arg, len);
	host[len] = '\0';
	if (!len) {
		struct sockaddr_in6 *any = (struct sockaddr_in6 *)&l->addr;

		any->sin6_family = AF_INET6;
		any->sin6_addr = in6addr_any;
		l->addr_len = sizeof(*any);
	} else if (host[0] == '[') {
		if (host[len - 1] != ']') {
			snprintf(why, n, "no ']' closes the IPv6 address");
			return -EINVAL;
		}
		host[len - 1] = '\0';
		if (!numeric(host + 1, AF_INET6, l)) {
			snprintf(why, n, "'%s' is not an IPv6 address", host + 1);
			return -EINVAL;
		}
	} else if (strchr(host, ':')) {
		snprintf(why, n, "an IPv6 address goes in brackets, e.g. [::1]:9873");
		return -EINVAL;
	} else if (strchr(host, ']')) {
		goto no_port;
	} else if (!numeric(host, AF_INET, l)) {
		snprintf(why, n, "'%s' is not an IPv4 address (give an address, not a host name; IPv6 in brackets)",
			 host);
		return -EINVAL;
	}
	if (l->addr.ss_family == AF_INET6) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&l->addr;

		a6->sin6_port = htons(port);
		/* IPv6's any takes IPv4 too: every address means both */
		l->dual = IN6_IS_ADDR_UNSPECIFIED(&a6->sin6_addr);
	} else {
		((struct sockaddr_in *)&l->addr)->sin_port = htons(port);
	}
	return 0;
no_port:
	snprintf(why, n, "give ADDRESS:PORT, e.g. 127.0.0.1:9873, [::1]:9873 or :9873 (every address)");
	return -EINVAL;
}

static long parse_long(struct argp_state *state, const char *what,
		       const char *arg, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		argp_error(state, "invalid %s: %s (%ld to %ld seconds)", what, arg, min,
			   max);
	return v;
}

/* The options that do not go with --once, in the order they are named. */
static const struct {
	unsigned int bit;
	const char *name;
} not_once[] = {
	{ GIVEN_LISTEN, "-l" },
	{ GIVEN_NO_HTTP, "--no-http" },
	{ GIVEN_TEXTFILE, "-t" },
	{ GIVEN_INTERVAL, "-i" },
};

/* Every option belongs to a mode: one given outside its mode is refused. */
static void check_modes(struct argp_state *state, unsigned int given)
{
	size_t i;

	if (given & GIVEN_ONCE) {
		for (i = 0; i < sizeof(not_once) / sizeof(not_once[0]); i++)
			if (given & not_once[i].bit)
				argp_error(state, "%s does not go with --once, which prints the metrics to stdout and exits",
					   not_once[i].name);
		return;
	}
	if (given & GIVEN_FORMAT)
		argp_error(state, "--format goes with --once only (over HTTP the scraper's Accept header picks the format; the textfile is always text)");
	if ((given & GIVEN_LISTEN) && (given & GIVEN_NO_HTTP))
		argp_error(state, "-l and --no-http: one or the other");
	if ((given & GIVEN_NO_HTTP) && !(given & GIVEN_TEXTFILE))
		argp_error(state, "--no-http needs -t FILE: nothing to serve");
	if ((given & GIVEN_INTERVAL) && !(given & GIVEN_TEXTFILE))
		argp_error(state, "-i goes with -t only: it is the textfile's interval");
}

static error_t parse_arg(int key, char *arg, struct argp_state *state)
{
	struct ex_options *o = state->input;
	char why[256];

	switch (key) {
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);	/* as --help */
		break;
	case 'l':
		if (parse_listen(arg, &o->listen, why, sizeof(why)))
			argp_error(state, "-l %s: %s", arg, why);
		o->given |= GIVEN_LISTEN;
		break;
	case OPT_NO_HTTP:
		o->given |= GIVEN_NO_HTTP;
		break;
	case 't':
		o->textfile = arg;
		o->given |= GIVEN_TEXTFILE;
		break;
	case 'i':
		o->interval = parse_long(state, "interval", arg, 1, 86400);
		o->given |= GIVEN_INTERVAL;
		break;
	case OPT_ONCE:
		o->once = true;
		o->given |= GIVEN_ONCE;
		break;
	case OPT_FORMAT:
		if (!strcmp(arg, "openmetrics"))
			o->once_format = EX_OPENMETRICS;
		else if (!strcmp(arg, "text"))
			o->once_format = EX_TEXT;
		else
			argp_error(state, "invalid format: %s (openmetrics, text)",
				   arg);
		o->given |= GIVEN_FORMAT;
		break;
	case OPT_NO_CALLS:
		o->calls = false;
		break;
	case 'v':
		o->verbose = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unrecognized argument: %s", arg);
		break;
	case ARGP_KEY_END:
		check_modes(state, o->given);
		o->http = !o->once && !(o->given & GIVEN_NO_HTTP);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/**
 * ex_options_parse() - the command line, or exit 64 naming what is wrong
 * @o:    filled
 * @argc: main()'s
 * @argv: main()'s
 */
void ex_options_parse(struct ex_options *o, int argc, char **argv)
{
	static const struct argp argp = {
		.options = opts,
		.parser = parse_arg,
		.doc = doc,
	};
	char why[256];

	memset(o, 0, sizeof(*o));
	o->interval = 15;
	o->calls = true;
	o->version = KLP_VERSION;
	o->revision = KLP_REVISION;
	if (parse_listen(EX_DEFAULT_LISTEN, &o->listen, why, sizeof(why)))
		abort();
	if (argp_parse(&argp, argc, argv, 0, NULL, o))
		exit(EXIT_FAILURE);
}
