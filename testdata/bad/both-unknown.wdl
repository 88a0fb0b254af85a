# File-type: text/wl-spec
5	smpi	ordered	?	fs1:?,fs2:?	Zero	-
