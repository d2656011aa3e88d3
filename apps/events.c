// SPDX-License-Identifier: GPL-2.0
/*
 * vivpoll-events: watch a vivpoll device for V4L2 events (control changes,
 * source changes) the way an event-only client should:
 * select() with the fd in exceptfds only. Prints every event; at exit
 * checks that the capture engine never ran meanwhile (the
 * VIVPOLL_CID_ENGINE_STARTS control did not move), because a client
 * that only waits for events must never start streaming.
 *
 * With --self-test it raises the events itself from a second fd (toggles
 * the Camera 2 signal, changes brightness) and checks that each one
 * arrives.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <unistd.h>

#include "common.h"

#define SELFTEST_TIMEOUT_MS	10000

static volatile sig_atomic_t stop;

struct opts {
	char dev[64];
	unsigned long count;	/* 0: unlimited */
	unsigned long timeout_ms; /* 0: none */
	bool timeout_set;
	bool self_test;
	bool shared;		/* another program may stream: starts are not failures */
	bool quiet;
};

/* What the self-test expects to see. */
struct seen {
	bool src_change;	/* V4L2_EVENT_SOURCE_CHANGE, input 1 */
	bool ctrl_bright;	/* V4L2_EVENT_CTRL, brightness */
	bool ctrl_cam2;		/* V4L2_EVENT_CTRL, Camera 2 signal */
};

struct raiser {
	pthread_t th;
	int fd;
	int rc;
	char what[64];
	int32_t cam2_orig, bright_orig;
	struct v4l2_query_ext_ctrl bright;
};

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: vivpoll-events [options]\n"
"Watch a vivpoll device for control and source change events with\n"
"select() on exceptfds only; at exit check that the engine never ran.\n"
"\n"
"  -d, --device DEV    video device (path or number; default: first vivpoll)\n"
"  -n, --count N       exit after N events\n"
"  -t, --timeout SEC   exit after SEC seconds (fractions allowed)\n"
"      --shared        another program may stream from the device meanwhile:\n"
"                      report engine starts (this watcher cannot tell who\n"
"                      started it), do not fail on them\n"
"      --self-test     raise the events from a second fd (Camera 2 signal toggle,\n"
"                      brightness change) and check they arrive\n"
"                      (default timeout %d s)\n"
"  -q, --quiet         do not print the events\n"
"  -h, --help          this text\n"
"\n"
"Exit status: 0 ok; 1 the engine ran (without --shared), an expected event was\n"
"missing, --count not reached, or an error; 2 bad usage.\n", SELFTEST_TIMEOUT_MS / 1000);
}

static void bad_usage(const char *msg, const char *arg)
{
	fprintf(stderr, "vivpoll-events: %s '%s'\n"
		"Try 'vivpoll-events --help'.\n", msg, arg);
	exit(VP_EXIT_USAGE);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "self-test", no_argument, NULL, 'S' },
		{ "shared", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:n:t:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			snprintf(o->dev, sizeof(o->dev), "%s", optarg);
			break;
		case 'n':
			if (vp_parse_uint(optarg, 1, 1000000, &o->count))
				bad_usage("--count needs a number >= 1, not",
					  optarg);
			break;
		case 't':
			if (vp_parse_seconds(optarg, &o->timeout_ms) ||
			    !o->timeout_ms)
				bad_usage("--timeout needs seconds > 0, not",
					  optarg);
			o->timeout_set = true;
			break;
		case 'S':
			o->self_test = true;
			break;
		case 's':
			o->shared = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			bad_usage("missing argument for", argv[optind - 1]);
			break;
		default:
			bad_usage("unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		bad_usage("unexpected argument", argv[optind]);
	if (o->self_test && !o->timeout_set)
		o->timeout_ms = SELFTEST_TIMEOUT_MS;
}

/* Subscribe to every control and every input's source change. */
static int subscribe_all(int fd, bool quiet)
{
	struct v4l2_query_ext_ctrl q;
	struct v4l2_input in;
	unsigned int nctrl = 0, ninput = 0;
	uint32_t id = 0;
	int r;

	for (;;) {
		memset(&q, 0, sizeof(q));
		q.id = id | V4L2_CTRL_FLAG_NEXT_CTRL |
		       V4L2_CTRL_FLAG_NEXT_COMPOUND;
		if (ioctl(fd, VIDIOC_QUERY_EXT_CTRL, &q) < 0)
			break;
		id = q.id;
		if (q.type == V4L2_CTRL_TYPE_CTRL_CLASS ||
		    (q.flags & V4L2_CTRL_FLAG_DISABLED))
			continue;
		r = vp_subscribe(fd, V4L2_EVENT_CTRL, q.id, 0);
		if (r) {
			fprintf(stderr, "vivpoll-events: subscribe ctrl %s: "
				"%s\n", q.name, strerror(-r));
			return r;
		}
		nctrl++;
	}
	for (in.index = 0; ; in.index++) {
		memset(in.name, 0, sizeof(in.name));
		if (ioctl(fd, VIDIOC_ENUMINPUT, &in) < 0)
			break;
		r = vp_subscribe(fd, V4L2_EVENT_SOURCE_CHANGE, in.index, 0);
		if (r) {
			fprintf(stderr, "vivpoll-events: subscribe source "
				"change (input %u): %s\n", in.index,
				strerror(-r));
			return r;
		}
		ninput++;
	}
	if (!quiet)
		printf("subscribed: %u controls, source change on %u inputs\n",
		       nctrl, ninput);
	return 0;
}

static void *raiser_main(void *arg)
{
	struct raiser *r = arg;
	int32_t v;

	vp_sleep_ms(200);
	snprintf(r->what, sizeof(r->what), "toggle the Camera 2 signal");
	r->rc = vp_ctrl_get(r->fd, VIVPOLL_CID_CAM2_SIGNAL, &v);
	if (!r->rc)
		r->rc = vp_ctrl_set(r->fd, VIVPOLL_CID_CAM2_SIGNAL, !v);
	if (r->rc)
		return NULL;
	vp_sleep_ms(100);
	snprintf(r->what, sizeof(r->what), "change brightness");
	v = r->bright_orig == r->bright.maximum ? r->bright.minimum :
	    r->bright.maximum;
	r->rc = vp_ctrl_set(r->fd, V4L2_CID_BRIGHTNESS, v);
	return NULL;
}

static void note(struct seen *s, const struct v4l2_event *ev)
{
	switch (ev->type) {
	case V4L2_EVENT_SOURCE_CHANGE:
		if (ev->id == 1)
			s->src_change = true;
		break;
	case V4L2_EVENT_CTRL:
		if (ev->id == V4L2_CID_BRIGHTNESS)
			s->ctrl_bright = true;
		if (ev->id == VIVPOLL_CID_CAM2_SIGNAL)
			s->ctrl_cam2 = true;
		break;
	}
}

static bool all_seen(const struct seen *s)
{
	return s->src_change && s->ctrl_bright && s->ctrl_cam2;
}

int main(int argc, char **argv)
{
	struct opts o = { .count = 0 };
	struct raiser rz = { .fd = -1 };
	struct seen seen = { 0 };
	bool raiser_started = false, failed = false, counted_out = false;
	uint64_t t0, deadline, before, after;
	unsigned long nev = 0;
	char desc[256];
	int fd, inst, r;

	parse_args(argc, argv, &o);
	setvbuf(stdout, NULL, _IOLBF, 0);

	fd = vp_open(o.dev, O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "vivpoll-events: %s: %s\n",
			o.dev[0] ? o.dev : "(first vivpoll device)",
			fd == -ENOTTY ? "not a vivpoll capture device" :
			strerror(-fd));
		return 1;
	}
	inst = vp_instance(fd);
	r = vp_engine_starts(fd, inst, &before);
	if (r) {
		fprintf(stderr, "vivpoll-events: cannot read the engine start "
			"counter: %s\n", strerror(-r));
		return 1;
	}
	if (subscribe_all(fd, o.quiet))
		return 1;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	if (o.self_test) {
		rz.fd = vp_open(o.dev, O_RDWR | O_NONBLOCK);
		if (rz.fd < 0 ||
		    vp_ctrl_query(rz.fd, V4L2_CID_BRIGHTNESS, &rz.bright) ||
		    vp_ctrl_get(rz.fd, V4L2_CID_BRIGHTNESS, &rz.bright_orig) ||
		    vp_ctrl_get(rz.fd, VIVPOLL_CID_CAM2_SIGNAL,
				&rz.cam2_orig)) {
			fprintf(stderr, "vivpoll-events: self-test: cannot "
				"open a second fd or read its controls\n");
			return 1;
		}
		if (pthread_create(&rz.th, NULL, raiser_main, &rz)) {
			fprintf(stderr, "vivpoll-events: pthread_create "
				"failed\n");
			return 1;
		}
		raiser_started = true;
		if (!o.quiet)
			printf("self-test: raising events from a second fd "
			       "in 200 ms\n");
	}

	t0 = vp_now_ns();
	deadline = o.timeout_ms ? t0 + o.timeout_ms * 1000000ull : 0;
	while (!stop) {
		struct timeval tv, *tvp = NULL;
		struct v4l2_event ev;
		fd_set ex;

		if (deadline) {
			uint64_t now = vp_now_ns(), left;

			if (now >= deadline)
				break;
			left = (deadline - now) / 1000;
			tv.tv_sec = left / 1000000;
			tv.tv_usec = left % 1000000;
			tvp = &tv;
		}
		/* exceptfds only: we want POLLPRI, never frames */
		FD_ZERO(&ex);
		FD_SET(fd, &ex);
		r = select(fd + 1, NULL, NULL, &ex, tvp);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "vivpoll-events: select: %s\n",
				strerror(errno));
			failed = true;
			break;
		}
		if (!r)
			continue;
		while (ioctl(fd, VIDIOC_DQEVENT, &ev) == 0) {
			nev++;
			note(&seen, &ev);
			if (!o.quiet) {
				vp_event_describe(fd, &ev, desc,
						  sizeof(desc));
				printf("[%8.3f] event %lu: %s pending=%u "
				       "ts=%lld.%09ld\n",
				       (vp_now_ns() - t0) / 1e9, nev, desc,
				       ev.pending,
				       (long long)ev.timestamp.tv_sec,
				       ev.timestamp.tv_nsec);
			}
			if (o.count && nev >= o.count)
				break;
		}
		if (o.count && nev >= o.count) {
			counted_out = true;
			break;
		}
		if (o.self_test && !o.count && all_seen(&seen))
			break;
	}

	if (raiser_started) {
		pthread_join(rz.th, NULL);
		if (rz.rc) {
			fprintf(stderr, "vivpoll-events: self-test: %s: %s\n",
				rz.what, strerror(-rz.rc));
			failed = true;
		}
	}

	r = vp_engine_starts(fd, inst, &after);
	close(fd);
	if (raiser_started) {
		/* restore, with nobody subscribed any more */
		vp_ctrl_set(rz.fd, VIVPOLL_CID_CAM2_SIGNAL, rz.cam2_orig);
		vp_ctrl_set(rz.fd, V4L2_CID_BRIGHTNESS, rz.bright_orig);
		close(rz.fd);
	}

	printf("events: %lu\n", nev);
	if (o.count && !counted_out) {
		printf("FAIL: %lu of %lu events before the timeout\n", nev,
		       o.count);
		failed = true;
	}
	if (o.self_test) {
		printf("self-test: source_change(input 1)=%s "
		       "ctrl(brightness)=%s ctrl(cam2_signal)=%s\n",
		       seen.src_change ? "yes" : "NO",
		       seen.ctrl_bright ? "yes" : "NO",
		       seen.ctrl_cam2 ? "yes" : "NO");
		if (!all_seen(&seen)) {
			printf("FAIL: self-test events missing\n");
			failed = true;
		}
	}
	if (r) {
		printf("FAIL: cannot read the engine start counter: %s\n",
		       strerror(-r));
		failed = true;
	} else if (after != before && o.shared) {
		printf("engine: started %" PRIu64 " time(s) on the device while "
		       "this watcher waited (engine_starts %" PRIu64 " -> %"
		       PRIu64 "), by this or another file handle\n",
		       after - before, before, after);
	} else if (after != before) {
		printf("FAIL: the engine started %" PRIu64 " time(s) while "
		       "only waiting for events (engine_starts %" PRIu64
		       " -> %" PRIu64 ")\n", after - before, before, after);
		failed = true;
	} else {
		printf("engine: never ran (engine_starts stayed at %" PRIu64
		       ")\n", after);
	}
	return failed ? 1 : 0;
}
