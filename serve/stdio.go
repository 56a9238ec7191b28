package serve

import (
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/serve/internal/wire"
)

// StdioTransport returns the transport serving one client over in and out
// with newline-delimited JSON-RPC, as mcp.IOTransport does, except that a
// line it cannot take does not end the connection: a line that is not
// JSON gets a JSON-RPC -32700 error, one that is JSON but no JSON-RPC
// message (or batch of them) gets -32600, a line longer than the limit
// gets -32600 too, and the server reads on. go-sdk's transport stops
// reading at the first such line, so the client gets no reply to it, nor
// to calls still in progress.
//
// At the end of in, the transport closes only when every request read has
// been answered, or drain has passed: a client that writes its requests
// and closes its end still gets every reply.
func StdioTransport(in io.Reader, out io.Writer, drain time.Duration) mcp.Transport {
	return wire.StdioTransport(in, out, drain)
}
