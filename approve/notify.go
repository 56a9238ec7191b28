package approve

import (
	"fmt"
	"time"
)

// Notification is the JSON body an approval's webhook receives (the ask's
// notify.webhook). Text is a sentence with the link that a chat's
// incoming webhook (Slack, Mattermost, Teams, Google Chat) can post as is.
type Notification struct {
	Tool     string `json:"tool"`
	Run      string `json:"run"`
	Task     string `json:"task"`
	Question string `json:"question"` // the ask's id
	Message  string `json:"message"`  // the question as the flow renders it
	To       string `json:"to"`
	Link     string `json:"link"`
	Expires  string `json:"expires"` // RFC 3339, UTC
	Text     string `json:"text"`
}

// Notice is what a Notification is made of.
type Notice struct {
	Tool, Title       string // the tool's name, and its title ("" for none)
	Run, Task         string // the run's id and the task's
	Question, Message string // the ask's id and its question as rendered
	To, Link          string // who is asked, and the page's URL
	Expires           time.Time
}

// NewNotification returns the notification of n: its fields, and a Text
// naming the tool (its title when it has one), who is asked, the
// question, until when and the link.
func NewNotification(n Notice) Notification {
	title := n.Title
	if title == "" {
		title = n.Tool
	}
	return Notification{Tool: n.Tool, Run: n.Run, Task: n.Task, Question: n.Question, Message: n.Message,
		To: n.To, Link: n.Link, Expires: n.Expires.UTC().Format(time.RFC3339),
		Text: fmt.Sprintf("%s asks %s: %s\nAnswer by %s: %s", title, n.To, n.Message,
			n.Expires.UTC().Format("2 Jan 2006 15:04 MST"), n.Link)}
}
