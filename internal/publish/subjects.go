package publish

// subjects are the subjects published to, kept: a team's few subjects
// are made once, not for every event.
type subjects map[subjectOf]string

type subjectOf struct {
	team int
	typ  string
}

// maxSubjects bounds the subjects kept; past it, they are made anew.
const maxSubjects = 4096

func (s subjects) of(team int, typ string) string {
	if subject, ok := s[subjectOf{team, typ}]; ok {
		return subject
	}
	if len(s) >= maxSubjects {
		clear(s)
	}
	subject := Subject(team, typ)
	s[subjectOf{team, typ}] = subject
	return subject
}
