package mcplive_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mcplive/mcplive"
)

// Connect, render the tools as they change, and call one.
func ExampleConnect() {
	ctx := context.Background()
	c, err := mcplive.Connect(ctx, "http://127.0.0.1:8080/mcp", &mcplive.Options{
		ClientInfo: mcplive.Implementation{Name: "my-app", Version: "1.0.0"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	for _, t := range c.Tools().Snapshot().Items {
		fmt.Println(t.Name, "-", t.Description)
	}
	stop := c.Tools().Subscribe(func(u mcplive.Update[mcplive.Tool]) {
		fmt.Printf("tools v%d (%s): +%d -%d ~%d\n", u.Version, u.Status, len(u.Added), len(u.Removed), len(u.Changed))
	})
	defer stop()

	res, err := c.CallTool(ctx, "echo", map[string]any{"text": "hello"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
}
