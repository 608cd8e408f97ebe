// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * klp-exporter_http.c - the HTTP endpoint: GET /metrics, nothing else
 *
 * libmicrohttpd parses the requests; it runs in the exporter's own loop
 * (its epoll fd beside the ring buffer's), so a scrape reads the model
 * with no lock and no thread.  It bounds what a client can make it hold:
 * a request's headers (a bigger one is refused), a request's time, and
 * connections in all and per address, in a way no client can use to
 * lock the scraper out (below).  Any other path gets 404, any other
 * method 405, a request with a body 413.
 *
 * Slow clients.  libmicrohttpd's timeout is an idle one, restarted by
 * every byte, and its connection limits refuse the newcomer: a local
 * user (every local client is 127.0.0.1) trickling a header byte every
 * few seconds on 8 sockets kept /metrics unreachable for as long as he
 * liked.  So each connection is tracked here (MHD_OPTION_NOTIFY_CONNECTION
 * and _COMPLETED) and, after each MHD_run():
 *  - a request has EX_HTTP_REQUEST_S in all, from its first byte (for a
 *    connection's first request, from the accept) to its answer sent;
 *    an overdue one's socket is shut down, which libmicrohttpd sees as
 *    the client gone and closes (it has no call to close a connection
 *    from outside a handler).  Between requests a kept-alive connection
 *    waits up to EX_HTTP_IDLE_S (libmicrohttpd's idle timeout) without
 *    a clock: a request's first byte is seen as the socket's received
 *    bytes (TCP_INFO) growing past what they were at the last answer;
 *  - a newcomer is never refused: when its address already has
 *    EX_HTTP_PER_ADDRESS connections, the oldest of them is closed for
 *    it, else when EX_HTTP_CONNECTIONS are open, the oldest of all.  A
 *    scraper's request is answered within a millisecond of its connect,
 *    so slow clients cannot push it out; only a flood of connections
 *    faster than that could, which no limit of ours can stop.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "klp-exporter.h"

#define EX_HTTP_HEADER_BYTES	(16 * 1024)	/* per connection */
#define EX_HTTP_CONNECTIONS	32		/* open, then the oldest goes */
#define EX_HTTP_PER_ADDRESS	8		/* likewise, of one address */
#define EX_HTTP_REQUEST_S	10		/* a request's time in all */
#define EX_HTTP_IDLE_S		120		/* kept alive between scrapes */
/* libmicrohttpd's own limit, above ours: closed ones wait for MHD_run() */
#define EX_HTTP_MHD_CONNECTIONS	(2 * EX_HTTP_CONNECTIONS)

#define NSEC_PER_MSEC		1000000ULL

/* A connection, as tracked for the limits (see the top). */
struct ex_conn {
	struct ex_conn *next, *prev;
	int fd;
	struct sockaddr_storage addr;	/* the client's */
	unsigned long long accepted_ns;
	unsigned long long request_ns;	/* its request's start; 0: none */
	unsigned long long rx_answered;	/* bytes received at the last answer */
	bool closing;			/* shut down, for libmicrohttpd to close */
};

struct ex_http {
	struct MHD_Daemon *daemon;
	ex_scrape_fn scrape;
	void *ctx;
	struct strbuf body;		/* the last scrape's, reused */
	struct ex_conn conns;		/* the list's head */
	unsigned int open;		/* on the list and not closing */
	int next_due_ms;		/* of the next request deadline, or -1 */
	char where[INET6_ADDRSTRLEN + 128];	/* for the startup line */
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The bytes a connection's socket received, all told. */
static unsigned long long rx_bytes(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return 0;
	return ti.tcpi_bytes_received;
}

static bool same_address(const struct sockaddr_storage *a,
			 const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return true;
}

/* Shut its socket down: libmicrohttpd reads the end and closes it. */
static void conn_close(struct ex_http *h, struct ex_conn *k)
{
	shutdown(k->fd, SHUT_RDWR);
	k->closing = true;
	h->open--;
}

/* The oldest open connection, of @addr's address if it is not NULL. */
static struct ex_conn *oldest(struct ex_http *h,
			      const struct sockaddr_storage *addr,
			      unsigned int *nr)
{
	struct ex_conn *k, *old = NULL;

	*nr = 0;
	for (k = h->conns.next; k != &h->conns; k = k->next) {
		if (k->closing || (addr && !same_address(&k->addr, addr)))
			continue;
		(*nr)++;
		if (!old || k->accepted_ns < old->accepted_ns)
			old = k;
	}
	return old;
}

/* Room for a newcomer from @addr: the oldest goes, the newcomer stays. */
static void make_room(struct ex_http *h, const struct sockaddr_storage *addr)
{
	unsigned int nr;
	struct ex_conn *old = oldest(h, addr, &nr);

	if (nr < EX_HTTP_PER_ADDRESS) {
		old = oldest(h, NULL, &nr);
		if (nr < EX_HTTP_CONNECTIONS)
			return;
	}
	conn_close(h, old);
}

static void on_connection(void *cls, struct MHD_Connection *c,
			  void **socket_ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	struct ex_http *h = cls;
	struct ex_conn *k = *socket_ctx;
	const union MHD_ConnectionInfo *fd, *addr;

	if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (!k)
			return;
		k->prev->next = k->next;
		k->next->prev = k->prev;
		if (!k->closing)
			h->open--;
		free(k);
		return;
	}
	fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	addr = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (!fd || !addr)
		return;		/* not tracked: libmicrohttpd's limits hold */
	k = xrealloc(NULL, 1, sizeof(*k));
	memset(k, 0, sizeof(*k));
	k->fd = fd->connect_fd;
	memcpy(&k->addr, addr->client_addr,
	       addr->client_addr->sa_family == AF_INET6 ?
	       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	k->accepted_ns = k->request_ns = now_ns();
	make_room(h, &k->addr);
	k->next = h->conns.next;
	k->prev = &h->conns;
	k->next->prev = k;
	h->conns.next = k;
	h->open++;
	*socket_ctx = k;
}

/* A request answered (or given up): the next one's clock is not started. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	const union MHD_ConnectionInfo *info;
	struct ex_conn *k;

	info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	k = info ? info->socket_context : NULL;
	if (!k)
		return;
	k->request_ns = 0;
	k->rx_answered = rx_bytes(k->fd);
}

/*
 * Start the clock of requests that began, close the overdue ones.
 * Returns the ms until the next is due, or -1 for none.
 */
static int enforce_deadlines(struct ex_http *h)
{
	unsigned long long now = now_ns(), due, next = 0;
	unsigned long long limit = EX_HTTP_REQUEST_S * 1000 * NSEC_PER_MSEC;
	struct ex_conn *k;

	for (k = h->conns.next; k != &h->conns; k = k->next) {
		if (k->closing)
			continue;
		if (!k->request_ns && rx_bytes(k->fd) > k->rx_answered)
			k->request_ns = now;
		if (!k->request_ns)
			continue;
		due = k->request_ns + limit;
		if (due <= now)
			conn_close(h, k);
		else if (!next || due < next)
			next = due;
	}
	return next ? (int)((next - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC) : -1;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *type, const char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body,
					    MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result refuse(struct MHD_Connection *c, unsigned int status,
			      const char *why)
{
	return reply(c, status, "text/plain; charset=utf-8", why, strlen(why));
}

/* OpenMetrics when the scraper lists it (Prometheus does), else 0.0.4. */
static enum ex_format negotiate(struct MHD_Connection *c)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);

	return accept && strstr(accept, "application/openmetrics-text") ?
	       EX_OPENMETRICS : EX_TEXT;
}

/* A body announced, however: a scrape has none. */
static bool has_body(struct MHD_Connection *c, size_t upload_size)
{
	const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						      MHD_HTTP_HEADER_CONTENT_LENGTH);

	return upload_size ||
	       MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					   MHD_HTTP_HEADER_TRANSFER_ENCODING) ||
	       (len && strcmp(len, "0"));
}

/*
 * libmicrohttpd calls this first with the headers only, then again once
 * the request is whole.  Another method than GET or HEAD, or a body
 * announced, is refused at the first call, the body unread (libmicrohttpd then closes the connection: the rest of the
 * stream is the body's); anything else is answered at the second, when
 * the request is complete and the connection can stay open for the next
 * one (keep-alive, as Prometheus scrapes, and pipelined requests).
 */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload_data,
				  size_t *upload_data_size, void **req_cls)
{
	struct ex_http *h = cls;
	enum ex_format fmt;

	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED,
			      "only GET and HEAD\n");
	if (has_body(c, *upload_data_size))
		return refuse(c, MHD_HTTP_CONTENT_TOO_LARGE,
			      "a scrape has no body\n");
	if (!*req_cls) {
		*req_cls = h;	/* the headers seen */
		return MHD_YES;
	}
	if (strcmp(url, "/metrics"))
		return refuse(c, MHD_HTTP_NOT_FOUND,
			      "not found: klp-exporter serves /metrics only\n");
	fmt = negotiate(c);
	h->body.len = 0;
	h->scrape(h->ctx, fmt, &h->body);
	return reply(c, MHD_HTTP_OK, fmt == EX_OPENMETRICS ?
		     "application/openmetrics-text; version=1.0.0; charset=utf-8" :
		     "text/plain; version=0.0.4; charset=utf-8",
		     h->body.s ? h->body.s : "", h->body.len);
}

/* "ADDRESS:PORT" of a bound socket, IPv6 in brackets */
static void sock_name(int fd, char *name, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN], port[8];

	if (getsockname(fd, (struct sockaddr *)&ss, &len) ||
	    getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), port,
			sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(name, n, "?");
		return;
	}
	snprintf(name, n, ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s",
		 host, port);
}

/*
 * The listening socket, made here rather than by libmicrohttpd: what it
 * is bound to is ours to say (port 0 picks one, said at start), and
 * IPv6's any takes IPv4 too (IPV6_V6ONLY off, whatever the host's
 * net.ipv6.bindv6only), or IPv4's any alone on a host without IPv6.
 * Returns the socket, or -errno.
 */
static int listen_on(const struct ex_listen *l)
{
	struct sockaddr_in any4 = { .sin_family = AF_INET };
	const struct sockaddr *sa = (const struct sockaddr *)&l->addr;
	socklen_t len = l->addr_len;
	int fd, err, one = 1, v6only = !l->dual;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 && errno == EAFNOSUPPORT && l->dual) {
		any4.sin_port = ((const struct sockaddr_in6 *)sa)->sin6_port;
		any4.sin_addr.s_addr = htonl(INADDR_ANY);
		sa = (const struct sockaddr *)&any4;
		len = sizeof(any4);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	}
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (sa->sa_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only))) ||
	    bind(fd, sa, len) || listen(fd, SOMAXCONN)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/**
 * ex_http_start() - listen on an address, serve scrapes from the loop
 * @l:      where (options' -l)
 * @scrape: fills a scrape's body
 * @ctx:    its first argument
 *
 * ex_http_where() then says where it listens, with the port it got.
 *
 * Return: the endpoint, or NULL after saying why.
 */
struct ex_http *ex_http_start(const struct ex_listen *l, ex_scrape_fn scrape,
			      void *ctx)
{
	struct ex_http *h;
	char name[INET6_ADDRSTRLEN + 16];
	int fd = listen_on(l);

	if (fd < 0) {
		fprintf(stderr, "%s: cannot listen on %s: %s (in use, or not an address of this host?)\n",
			program_invocation_short_name, l->text, strerror(-fd));
		return NULL;
	}
	h = xrealloc(NULL, 1, sizeof(*h));
	memset(h, 0, sizeof(*h));
	h->scrape = scrape;
	h->ctx = ctx;
	h->conns.next = h->conns.prev = &h->conns;
	h->next_due_ms = -1;
	/* no per-address limit of libmicrohttpd's: it refuses newcomers */
	h->daemon = MHD_start_daemon(MHD_USE_EPOLL, 0, NULL, NULL, on_request, h,
		MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)EX_HTTP_HEADER_BYTES,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)EX_HTTP_MHD_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)EX_HTTP_IDLE_S,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_END);
	if (!h->daemon) {
		fprintf(stderr, "%s: cannot serve HTTP on %s: %m\n",
			program_invocation_short_name, l->text);
		close(fd);
		free(h);
		return NULL;
	}
	sock_name(fd, name, sizeof(name));
	snprintf(h->where, sizeof(h->where), "http://%s/metrics%s", name,
		 l->dual ? (name[0] == '[' ? " (every address, IPv4 and IPv6)" :
			    " (every address: IPv4 only, this host has no IPv6)") : "");
	return h;
}

/* Where it listens: "http://ADDRESS:PORT/metrics", and what that covers. */
const char *ex_http_where(const struct ex_http *h)
{
	return h->where;
}

/* Readable when a connection or a request waits: then ex_http_run(). */
int ex_http_fd(const struct ex_http *h)
{
	const union MHD_DaemonInfo *info;

	info = MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	return info ? info->epoll_fd : -1;
}

/* How long the loop may sleep before ex_http_run() is due, at most max_ms. */
int ex_http_timeout_ms(const struct ex_http *h, int max_ms)
{
	MHD_UNSIGNED_LONG_LONG ms;

	if (h->next_due_ms >= 0 && h->next_due_ms < max_ms)
		max_ms = h->next_due_ms;
	if (MHD_get_timeout(h->daemon, &ms) == MHD_YES && ms < (unsigned int)max_ms)
		return (int)ms;
	return max_ms;
}

void ex_http_run(struct ex_http *h)
{
	MHD_run(h->daemon);
	h->next_due_ms = enforce_deadlines(h);
}

void ex_http_stop(struct ex_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->daemon);
	sb_free(&h->body);
	free(h);
}
