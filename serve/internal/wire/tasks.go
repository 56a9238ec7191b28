package wire

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/flowserve/flowserve/tasks"
)

// The tasks extension (SEP-2663) on the 2026-07-28 wire: its requests,
// the checks of their headers, and a task as the client reads it.

// TasksExtension is the extension's identifier, in capabilities.
const TasksExtension = "io.modelcontextprotocol/tasks"

// The methods of the extension.
const (
	MethodTasksGet    = "tasks/get"
	MethodTasksUpdate = "tasks/update"
	MethodTasksCancel = "tasks/cancel"
	// Methods of the experimental tasks of 2025-11-25 that the extension
	// removed: answered -32601.
	MethodTasksResult = "tasks/result"
	MethodTasksList   = "tasks/list"
)

// IsTasksMethod reports whether method is one of the tasks methods.
func IsTasksMethod(method string) bool {
	switch method {
	case MethodTasksGet, MethodTasksUpdate, MethodTasksCancel, MethodTasksResult, MethodTasksList:
		return true
	}
	return false
}

// MissingTasks is the -32021 error of a request that needs the extension
// from a client that did not declare it.
func MissingTasks(msg string) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{
		"extensions": map[string]any{TasksExtension: map[string]any{}}}})
	return &jsonrpc.Error{Code: CodeMissingCapability, Message: msg, Data: data}
}

// TasksRequest is a tasks/* request.
type TasksRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Meta           map[string]json.RawMessage `json:"_meta"`
		TaskID         *string                    `json:"taskId"`
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
	} `json:"params"`
}

// DecodeTasksRequest decodes a tasks/* request, or returns the -32600
// error refusing a body that is none.
func DecodeTasksRequest(body []byte) (*TasksRequest, *jsonrpc.Error) {
	var req TasksRequest
	if err := json.Unmarshal(body, &req); err != nil || req.JSONRPC != "2.0" || len(req.ID) == 0 {
		return &req, &jsonrpc.Error{Code: CodeInvalidRequest, Message: "invalid JSON-RPC request"}
	}
	return &req, nil
}

// TaskID is the task the request names, or "".
func (req *TasksRequest) TaskID() string {
	if req.Params.TaskID == nil {
		return ""
	}
	return *req.Params.TaskID
}

// CheckTasksHeaders checks a tasks request's headers against its body:
// MCP-Protocol-Version against _meta, Mcp-Method against the method, and
// for the methods that name a task, Mcp-Name against params.taskId; then
// that the version is one this server speaks.
func CheckTasksHeaders(h http.Header, req *TasksRequest) *jsonrpc.Error {
	hv := h.Get("Mcp-Protocol-Version")
	mv := MetaString(req.Params.Meta[MetaProtocolVersion])
	switch {
	case mv == "":
		return missingVersion()
	case hv != mv:
		return versionMismatch(hv, mv)
	}
	if rpcErr := checkMethod(h, req.Method); rpcErr != nil {
		return rpcErr
	}
	switch req.Method {
	case MethodTasksGet, MethodTasksUpdate, MethodTasksCancel:
		if rpcErr := checkName(h, req.Method, req.TaskID()); rpcErr != nil {
			return rpcErr
		}
	}
	return checkVersion(mv)
}

// Task is a task on the wire: the CreateTaskResult (resultType "task")
// and the DetailedTask of tasks/get (resultType "complete", with the
// field of its status).
type Task struct {
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         tasks.Status               `json:"status"`
	StatusMessage  string                     `json:"statusMessage,omitempty"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          int64                      `json:"ttlMs"`
	PollIntervalMs int64                      `json:"pollIntervalMs,omitempty"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Result         json.RawMessage            `json:"result,omitempty"`
	Error          json.RawMessage            `json:"error,omitempty"`
}

// CreateTaskResult is the answer to the call that created t; message is
// its statusMessage.
func CreateTaskResult(t *tasks.Task, message string, poll time.Duration) Task {
	return Task{ResultType: "task", TaskID: t.ID, Status: t.Status, StatusMessage: message,
		CreatedAt: Time(t.Created), LastUpdatedAt: Time(t.Updated),
		TTLMs: t.TTL.Milliseconds(), PollIntervalMs: poll.Milliseconds()}
}

// DetailedTask is the answer to tasks/get.
func DetailedTask(t *tasks.Task, message string, poll time.Duration) Task {
	j := CreateTaskResult(t, message, poll)
	j.ResultType = "complete"
	switch t.Status {
	case tasks.InputRequired:
		j.InputRequests = t.Requests
	case tasks.Completed:
		j.Result = t.Result
	case tasks.Failed:
		j.Error = t.Error
	}
	return j
}

// Time formats a task time as the extension's examples do.
func Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// Response encodes the JSON-RPC response carrying result to the request
// id.
func Response(id json.RawMessage, result any) ([]byte, error) {
	return json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  any             `json:"result"`
	}{"2.0", id, result})
}
