/* A host program built against an installed libmcpgw (pkg-config or CMake's
 * find_package): asks the daemon at $MCPGW_SOCKET for get_dynamic_tools and
 * prints the answer. Exit 0 on MCPGW_OK, else the status. */
#include <mcpgw.h>
#include <stdio.h>

int main(void) {
  mcpgw_client* client = mcpgw_open(NULL);
  if (!client) return 100;
  mcpgw_set_timeout_ms(client, 10000);
  char* out = NULL;
  mcpgw_status status = mcpgw_get_dynamic_tools(client, NULL, NULL, NULL, &out);
  printf("%s %s\n", mcpgw_status_name(status), out ? out : "");
  mcpgw_free(out);
  mcpgw_close(client);
  return (int)status;
}
