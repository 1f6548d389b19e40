package main
import (
 _ "golang.org/x/image/font/gofont/gomono"
 _ "golang.org/x/image/font/opentype"
 _ "github.com/oklog/ulid/v2"
 _ "github.com/charmbracelet/ultraviolet"
 _ "golang.org/x/sys/unix"
 _ "charm.land/bubbletea/v2"
 _ "charm.land/bubbles/v2/list"
 _ "charm.land/lipgloss/v2"
 _ "charm.land/glamour/v2"
 _ "github.com/charmbracelet/x/exp/teatest/v2"
 _ "github.com/charmbracelet/x/editor"
 _ "modernc.org/sqlite"
 _ "github.com/spf13/viper"
 _ "github.com/spf13/cobra"
)
func main(){}
