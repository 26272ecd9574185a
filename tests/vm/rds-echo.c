// SPDX-License-Identifier: GPL-2.0
/*
 * rds-echo: RDS over RDMA (the kernel's rds_rdma) traffic for the reset
 * cases; Debian packages no rds-tools.
 *
 *   rds-echo server ADDR PORT
 *	bind an RDS socket (IB transport) to ADDR:PORT and send every message
 *	back to its sender, until killed.
 *
 *   rds-echo client LOCAL REMOTE PORT STATFILE TIMEOUT_MS
 *	from LOCAL:PORT+1, send numbered messages with a checked payload to
 *	REMOTE:PORT one at a time, each until its echo comes back (sent again
 *	every 100 ms meanwhile).  STATFILE holds the number of messages
 *	echoed so far.  On SIGTERM or SIGINT it prints what it saw and exits
 *	0.  It exits 1 at once on a corrupt echo or on a message not echoed
 *	within TIMEOUT_MS.
 *
 * Bad arguments: a one-line message and exit 2.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define MSG_LEN		1024
#define RESEND_MS	100

static void bad_usage(void)
{
	fputs("usage: rds-echo server ADDR PORT\n"
	      "       rds-echo client LOCAL REMOTE PORT STATFILE TIMEOUT_MS\n", stderr);
	exit(2);
}

static long parse_num(const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "rds-echo: bad %s '%s' (%ld to %ld)\n", what, s, min, max);
		exit(2);
	}
	return v;
}

static void parse_addr(struct sockaddr_in *sin, const char *addr, long port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (inet_pton(AF_INET, addr, &sin->sin_addr) != 1) {
		fprintf(stderr, "rds-echo: bad IPv4 address '%s'\n", addr);
		exit(2);
	}
}

static int rds_socket(const struct sockaddr_in *sin)
{
	int trans = RDS_TRANS_IB;
	int fd;

	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	if (fd < 0) {
		perror("rds-echo: socket(AF_RDS)");
		exit(1);
	}
	if (setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &trans, sizeof(trans))) {
		perror("rds-echo: SO_RDS_TRANSPORT");
		exit(1);
	}
	if (bind(fd, (const struct sockaddr *)sin, sizeof(*sin))) {
		perror("rds-echo: bind");
		exit(1);
	}
	return fd;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int server(const char *addr, long port)
{
	struct sockaddr_in sin, from;
	char buf[MSG_LEN];
	socklen_t flen;
	ssize_t n;
	int fd;

	parse_addr(&sin, addr, port);
	fd = rds_socket(&sin);
	for (;;) {
		flen = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("rds-echo: recvfrom");
			return 1;
		}
		/*
		 * A send that fails (the connection is down, the send queue
		 * full) is the client's to repeat; never block on one.
		 */
		sendto(fd, buf, n, MSG_DONTWAIT, (struct sockaddr *)&from, flen);
	}
}

static void fill(unsigned char *buf, unsigned int seq)
{
	int i;

	memcpy(buf, &seq, sizeof(seq));
	for (i = sizeof(seq); i < MSG_LEN; i++)
		buf[i] = (seq * 31 + i) & 0xff;
}

/* Written aside and renamed over STATFILE: a reader never sees it empty. */
static void write_stat(const char *path, unsigned long echoed)
{
	char line[32], tmp[4096];
	int fd, len;

	len = snprintf(line, sizeof(line), "%lu\n", echoed);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	if (write(fd, line, len) != len)
		perror("rds-echo: stat file");
	close(fd);
	if (rename(tmp, path))
		perror("rds-echo: stat file");
}

static int client(const char *local, const char *remote, long port,
		  const char *stat, long timeout_ms)
{
	unsigned long sends = 0, send_errors = 0, stale = 0;
	unsigned char out[MSG_LEN], in[MSG_LEN];
	long long first, sent, t, wait, last_echo, gap, max_gap = 0;
	struct sockaddr_in me, peer;
	struct pollfd pfd[2];
	unsigned int seq = 0, got;
	sigset_t mask;
	ssize_t n;
	int fd;

	parse_addr(&me, local, port + 1);
	parse_addr(&peer, remote, port);
	fd = rds_socket(&me);
	/* SIGTERM or SIGINT ends the run, read from a signalfd. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	pfd[1].fd = signalfd(-1, &mask, 0);
	if (pfd[1].fd < 0) {
		perror("rds-echo: signalfd");
		return 1;
	}
	pfd[1].events = POLLIN;
	pfd[0].fd = fd;
	pfd[0].events = POLLIN;
	write_stat(stat, 0);
	last_echo = now_ms();
	for (;;) {
		fill(out, seq);
		first = now_ms();
		sent = 0;
		for (;;) {
			t = now_ms();
			if (t - first > timeout_ms) {
				fprintf(stderr, "rds-echo: message %u not echoed in %ld ms\n",
					seq, timeout_ms);
				return 1;
			}
			/* Sent again every RESEND_MS until its echo is back. */
			if (!sent || t - sent >= RESEND_MS) {
				sends++;
				/*
				 * Never blocks: while the connection is down, the
				 * resends fill the send queue (EAGAIN, counted).
				 */
				if (sendto(fd, out, MSG_LEN, MSG_DONTWAIT,
					   (struct sockaddr *)&peer, sizeof(peer)) < 0)
					send_errors++;
				sent = t;
			}
			wait = RESEND_MS - (now_ms() - sent);
			if (poll(pfd, 2, wait > 0 ? wait : 0) <= 0)
				continue;
			if (pfd[1].revents)
				goto done;
			if (!pfd[0].revents)
				continue;
			n = recv(fd, in, sizeof(in), MSG_DONTWAIT);
			if (n < 0)
				continue;
			if (n != MSG_LEN) {
				fprintf(stderr, "rds-echo: echo of %zd bytes\n", n);
				return 1;
			}
			memcpy(&got, in, sizeof(got));
			if (got == seq)
				break;
			stale++;	/* an echo of a resend */
		}
		if (memcmp(in, out, MSG_LEN)) {
			fprintf(stderr, "rds-echo: echo of message %u is corrupt\n", seq);
			return 1;
		}
		gap = now_ms() - last_echo;
		if (gap > max_gap)
			max_gap = gap;
		last_echo = now_ms();
		seq++;
		write_stat(stat, seq);
	}
done:
	printf("echoed %u sends %lu send_errors %lu stale %lu max_gap_ms %lld\n",
	       seq, sends, send_errors, stale, max_gap);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "server"))
		return server(argv[2], parse_num(argv[3], 1, 65534, "port"));
	if (argc == 7 && !strcmp(argv[1], "client"))
		return client(argv[2], argv[3], parse_num(argv[4], 1, 65534, "port"),
			      argv[5], parse_num(argv[6], 1, 3600000, "timeout"));
	bad_usage();
	return 2;
}
