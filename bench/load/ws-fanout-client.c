/*
 * WebSocket fan-out subscribers in C: one epoll thread holds N connections to /stream, so that the
 * measured limit is the server, not the client (the same work in Node took ~0.9 of a core at 1M
 * messages/s on this 2-core machine). Compiled by bench/load/ws-fanout-native.ts at run time.
 *
 *   ws-fanout-client HOST PORT SUBSCRIBE_FILE SAMPLE_EVERY MAX_SAMPLES
 *
 * SUBSCRIBE_FILE holds one SUBSCRIBE message per line, one line per connection. Talks to its parent
 * over stdin/stdout, one line each way:
 *   -> "ready <open>"        every connection is upgraded and acknowledged (SUBSCRIBED)
 *   <- "start"               count deliveries from now on (and sample latencies)
 *   <- "stop"                -> one JSON line: the tally of the window since "start"
 * and exits when its stdin closes.
 * A delivery is a text frame after the SUBSCRIBED acknowledgement; frames are counted from their
 * headers. Every SAMPLE_EVERY-th connection also reads "blockNumber": from each message and records
 * it with the wall-clock receive time (ms), to be joined with the explorer's commit times.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define IN_FLIGHT 200            /* handshakes under way at once, as the Node client did */
#define READ_BYTES (256 * 1024)  /* one shared read buffer: connections keep only an unfinished frame */
#define CARRY_MAX 65536         /* settlement messages are ~1 KB; anything this big is a bug */
#define STDIN_TAG UINT32_MAX

enum phase { CONNECTING, UPGRADING, SUBSCRIBING, LIVE, CLOSED };

struct conn {
  int fd;
  enum phase phase;
  int sampled;
  char *carry; /* bytes of an unfinished frame (or of the upgrade response) from the last read */
  size_t carry_len, carry_cap;
};

static struct conn *conns;
static char **subscribe_lines;
static size_t n_conns, next_to_open, open_conns, subscribed, in_flight;
static int measuring, epfd;
static uint64_t deliveries, delivered_bytes;
static double *sample_at;
static uint32_t *sample_block;
static size_t n_samples, max_samples;
static uint64_t closes[5000];
static uint64_t other_closes;
static const char *host, *port;
static size_t sample_every;

static double wall_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void die(const char *what) {
  fprintf(stderr, "ws-fanout-client: %s: %s\n", what, strerror(errno));
  exit(1);
}

/* Client frames must be masked; a zero mask leaves the payload as it is. */
static void send_frame(struct conn *c, int opcode, const char *payload, size_t len) {
  unsigned char frame[8 + 4096];
  size_t h = 0;
  if (len > 4096) len = 4096;
  frame[h++] = 0x80 | opcode;
  if (len < 126) frame[h++] = 0x80 | len;
  else { frame[h++] = 0x80 | 126; frame[h++] = len >> 8; frame[h++] = len & 0xff; }
  memset(frame + h, 0, 4);
  h += 4;
  memcpy(frame + h, payload, len);
  if (write(c->fd, frame, h + len) < 0 && errno != EAGAIN) c->phase = CLOSED;
}

static void open_next(void) {
  while (in_flight < IN_FLIGHT && next_to_open < n_conns) {
    size_t i = next_to_open++;
    struct conn *c = &conns[i];
    c->sampled = i % sample_every == 0;
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (c->fd < 0) die("socket");
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(atoi(port)) };
    inet_pton(AF_INET, host, &addr.sin_addr);
    if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) < 0 && errno != EINPROGRESS) die("connect");
    struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.u32 = (uint32_t)i };
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0) die("epoll_ctl");
    in_flight++;
  }
}

static void keep(struct conn *c, const char *bytes, size_t len) {
  if (len > CARRY_MAX) {
    fprintf(stderr, "ws-fanout-client: a frame over %d bytes\n", CARRY_MAX);
    exit(1);
  }
  if (len > c->carry_cap) {
    c->carry_cap = len * 2;
    c->carry = realloc(c->carry, c->carry_cap);
  }
  memmove(c->carry, bytes, len);
  c->carry_len = len;
}

static void on_text(struct conn *c, const char *p, size_t len) {
  if (c->phase == SUBSCRIBING) {
    if (memmem(p, len < 32 ? len : 32, "\"SUBSCRIBED\"", 12)) {
      c->phase = LIVE;
      subscribed++;
      in_flight--;
    }
    return;
  }
  if (!measuring) return;
  deliveries++;
  delivered_bytes += len;
  if (!c->sampled || n_samples >= max_samples) return;
  const char *at = memmem(p, len < 400 ? len : 400, "\"blockNumber\":", 14);
  if (!at) return;
  sample_block[n_samples] = (uint32_t)strtoul(at + 14, NULL, 10);
  sample_at[n_samples++] = wall_ms();
}

/* Parses the whole frames in buf and returns how many bytes they took. */
static size_t on_frames(struct conn *c, const char *buf, size_t len) {
  size_t at = 0;
  while (len - at >= 2) {
    const unsigned char *h = (const unsigned char *)buf + at;
    int opcode = h[0] & 0x0f;
    uint64_t plen = h[1] & 0x7f;
    size_t head = 2;
    if (plen == 126) {
      if (len - at < 4) break;
      plen = (uint64_t)h[2] << 8 | h[3];
      head = 4;
    } else if (plen == 127) {
      if (len - at < 10) break;
      plen = 0;
      for (int k = 0; k < 8; k++) plen = plen << 8 | h[2 + k];
      head = 10;
    }
    if (len - at < head + plen) break;
    const char *p = buf + at + head;
    if (opcode == 1) on_text(c, p, plen);
    else if (opcode == 9) send_frame(c, 10, p, plen);
    else if (opcode == 8) {
      unsigned code = plen >= 2 ? ((unsigned char)p[0] << 8 | (unsigned char)p[1]) : 1005;
      if (code < 5000) closes[code]++; else other_closes++;
    }
    at += head + plen;
  }
  return at;
}

static void on_upgrade(struct conn *c, char *buf, size_t len, size_t i) {
  char *end = memmem(buf, len, "\r\n\r\n", 4);
  if (!end) return keep(c, buf, len);
  if (len < 12 || !memmem(buf, 12, " 101", 4)) {
    fprintf(stderr, "ws-fanout-client: upgrade refused: %.*s\n", (int)(end - buf), buf);
    exit(1);
  }
  c->phase = SUBSCRIBING;
  open_conns++;
  send_frame(c, 1, subscribe_lines[i], strlen(subscribe_lines[i]));
  size_t rest = len - (end + 4 - buf);
  size_t used = on_frames(c, end + 4, rest);
  keep(c, end + 4 + used, rest - used);
}

static void on_readable(size_t i, char *buf) {
  struct conn *c = &conns[i];
  size_t len = c->carry_len;
  memcpy(buf, c->carry, len);
  ssize_t got = read(c->fd, buf + len, READ_BYTES);
  if (got <= 0) {
    if (got < 0 && errno == EAGAIN) return;
    if (c->phase != LIVE) {
      fprintf(stderr, "ws-fanout-client: connection %zu closed before it was subscribed\n", i);
      exit(1);
    }
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->phase = CLOSED;
    open_conns--;
    return;
  }
  len += (size_t)got;
  if (c->phase == UPGRADING) return on_upgrade(c, buf, len, i);
  size_t used = on_frames(c, buf, len);
  keep(c, buf + used, len - used);
}

static void on_writable(size_t i) {
  struct conn *c = &conns[i];
  static const char *request =
    "GET /stream HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
  char text[256];
  int n = snprintf(text, sizeof text, request, host, port);
  if (write(c->fd, text, n) != n) die("upgrade request");
  c->phase = UPGRADING;
  struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
  epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

static double started_ms, started_cpu;

static void report(void) {
  double seconds = (wall_ms() - started_ms) / 1e3;
  printf("{\"deliveries\":%llu,\"bytes\":%llu,\"seconds\":%.4f,\"cpuShare\":%.4f,\"open\":%zu,\"closes\":{",
         (unsigned long long)deliveries, (unsigned long long)delivered_bytes, seconds, (cpu_seconds() - started_cpu) / seconds, open_conns);
  const char *sep = "";
  for (int code = 0; code < 5000; code++)
    if (closes[code]) { printf("%s\"%d\":%llu", sep, code, (unsigned long long)closes[code]); sep = ","; }
  if (other_closes) printf("%s\"other\":%llu", sep, (unsigned long long)other_closes);
  printf("},\"samples\":[");
  for (size_t k = 0; k < n_samples; k++) printf("%s[%u,%.3f]", k ? "," : "", sample_block[k], sample_at[k]);
  printf("]}\n");
  fflush(stdout);
}

static void on_command(void) {
  char line[64];
  if (!fgets(line, sizeof line, stdin)) exit(0); /* the parent went away */
  if (strncmp(line, "start", 5) == 0) {
    deliveries = 0;
    delivered_bytes = 0;
    n_samples = 0;
    memset(closes, 0, sizeof closes);
    other_closes = 0;
    started_ms = wall_ms();
    started_cpu = cpu_seconds();
    measuring = 1;
  } else if (strncmp(line, "stop", 4) == 0) {
    measuring = 0;
    report();
  }
}

static void read_subscribe_file(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) die(path);
  size_t cap = 1024;
  subscribe_lines = malloc(cap * sizeof *subscribe_lines);
  char *line = NULL;
  size_t line_cap = 0;
  ssize_t n;
  while ((n = getline(&line, &line_cap, f)) > 0) {
    if (line[n - 1] == '\n') line[--n] = 0;
    if (n == 0) continue;
    if (n_conns == cap) subscribe_lines = realloc(subscribe_lines, (cap *= 2) * sizeof *subscribe_lines);
    subscribe_lines[n_conns++] = strdup(line);
  }
  fclose(f);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: ws-fanout-client HOST PORT SUBSCRIBE_FILE SAMPLE_EVERY MAX_SAMPLES\n");
    return 2;
  }
  host = argv[1];
  port = argv[2];
  sample_every = strtoul(argv[4], NULL, 10);
  max_samples = strtoul(argv[5], NULL, 10);
  read_subscribe_file(argv[3]);
  struct rlimit files = { n_conns + 64, n_conns + 64 };
  if (setrlimit(RLIMIT_NOFILE, &files) < 0) die("raising the open-file limit");
  conns = calloc(n_conns, sizeof *conns);
  sample_at = malloc(max_samples * sizeof *sample_at);
  sample_block = malloc(max_samples * sizeof *sample_block);
  char *buf = malloc(CARRY_MAX + READ_BYTES); /* a carried frame, then the read */
  epfd = epoll_create1(0);
  struct epoll_event in = { .events = EPOLLIN, .data.u32 = STDIN_TAG };
  epoll_ctl(epfd, EPOLL_CTL_ADD, 0, &in);
  open_next();
  int announced = 0;
  struct epoll_event events[512];
  for (;;) {
    int n = epoll_wait(epfd, events, 512, -1);
    if (n < 0 && errno != EINTR) die("epoll_wait");
    for (int k = 0; k < n; k++) {
      uint32_t i = events[k].data.u32;
      if (i == STDIN_TAG) on_command();
      else if (conns[i].phase == CONNECTING && (events[k].events & EPOLLOUT)) on_writable(i);
      else if (conns[i].phase != CLOSED) on_readable(i, buf);
    }
    open_next();
    if (!announced && subscribed == n_conns) {
      printf("ready %zu\n", open_conns);
      fflush(stdout);
      announced = 1;
    }
  }
}
