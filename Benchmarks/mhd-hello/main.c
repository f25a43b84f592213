/*
 * Baseline for benchmarks: a plain libmicrohttpd server that answers every request
 * with {"hello":"world"} (application/json), in the same mode as MicroHTTP: the
 * same daemon flags (epoll internal thread, suspend/resume, turbo), a thread pool of
 * one worker per core, MicroHTTP's default limits, and the reply queued on the
 * second call of the access handler.
 *
 * Usage: mhd-hello [port]   (default 8081; listens on 127.0.0.1)
 * Stops cleanly on SIGINT or SIGTERM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include <microhttpd.h>

static const char body[] = "{\"hello\":\"world\"}";

/* Marks "headers seen" in *con_cls; its address is never dereferenced. */
static int first_call_marker;

static enum MHD_Result
handle_request (void *cls, struct MHD_Connection *connection,
                const char *url, const char *method, const char *version,
                const char *upload_data, size_t *upload_data_size, void **con_cls)
{
  (void) cls; (void) url; (void) method; (void) version; (void) upload_data;

  if (NULL == *con_cls)
  {
    /* First call: headers only. Replying now would cost keep-alive. */
    *con_cls = &first_call_marker;
    return MHD_YES;
  }
  if (0 != *upload_data_size)
  {
    /* Discard any request body. */
    *upload_data_size = 0;
    return MHD_YES;
  }

  struct MHD_Response *response =
    MHD_create_response_from_buffer (sizeof (body) - 1, (void *) body,
                                     MHD_RESPMEM_PERSISTENT);
  if (NULL == response)
    return MHD_NO;
  MHD_add_response_header (response, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
  enum MHD_Result result = MHD_queue_response (connection, MHD_HTTP_OK, response);
  MHD_destroy_response (response);
  return result;
}

static unsigned int
core_count (void)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return (n > 0) ? (unsigned int) n : 1;
}

int
main (int argc, char **argv)
{
  long port = 8081;
  if (argc > 1)
  {
    char *end = NULL;
    errno = 0;
    port = strtol (argv[1], &end, 10);
    if ((0 != errno) || (end == argv[1]) || ('\0' != *end) || (port < 0) || (port > 65535))
    {
      fprintf (stderr, "usage: %s [port]\n", argv[0]);
      return 2;
    }
  }

  /* Block the stop signals in every thread (MHD's inherit this mask) and wait for
     them with sigwait below: no work in an async signal handler. */
  sigset_t stop_signals;
  sigemptyset (&stop_signals);
  sigaddset (&stop_signals, SIGINT);
  sigaddset (&stop_signals, SIGTERM);
  pthread_sigmask (SIG_BLOCK, &stop_signals, NULL);
  signal (SIGPIPE, SIG_IGN);

  struct sockaddr_in address;
  memset (&address, 0, sizeof (address));
  address.sin_family = AF_INET;
  address.sin_port = htons ((uint16_t) port);
  address.sin_addr.s_addr = htonl (INADDR_LOOPBACK);

  struct MHD_Daemon *daemon =
    MHD_start_daemon (MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME
                      | MHD_USE_TURBO | MHD_USE_ERROR_LOG,
                      (uint16_t) port, NULL, NULL,
                      &handle_request, NULL,
                      MHD_OPTION_SOCK_ADDR, (const struct sockaddr *) &address,
                      MHD_OPTION_THREAD_POOL_SIZE, core_count (),
                      MHD_OPTION_CONNECTION_LIMIT, (unsigned int) 16384,
                      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) (16 * 1024),
                      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 30,
                      MHD_OPTION_END);
  if (NULL == daemon)
  {
    fprintf (stderr, "mhd-hello: cannot start on 127.0.0.1:%ld\n", port);
    return 1;
  }
  fprintf (stderr, "mhd-hello: listening on 127.0.0.1:%ld\n", port);

  int received = 0;
  sigwait (&stop_signals, &received);
  fprintf (stderr, "mhd-hello: stopping (signal %d)\n", received);
  MHD_stop_daemon (daemon);
  return 0;
}
